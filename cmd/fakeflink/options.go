package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/flinkop/flinkop/fakeflink/image"
)

// options is a parsed command line.
type options struct {
	mode   string
	native bool // started as Flink's native decorators start a pod (bash -c kubernetes-*.sh)
	conf   map[string]string
	seed   int64
	job    jobOptions
}

// jobOptions are standalone-job's options.
type jobOptions struct {
	className        string
	jobID            string
	fromSavepoint    string
	allowNonRestored bool
	args             []string
}

type kvFlag map[string]string

func (f kvFlag) String() string { return fmt.Sprint(map[string]string(f)) }

func (f kvFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return fmt.Errorf("-D %q: want key=value", s)
	}
	f[strings.TrimSpace(k)] = strings.TrimSpace(v)
	return nil
}

func parseFlags(mode string, args []string) (*options, error) {
	fs := flag.NewFlagSet(mode, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	confDir := fs.String("conf-dir", envOr("FLINK_CONF_DIR", "/opt/flink/conf"), "configuration directory")
	seed := fs.Int64("seed", time.Now().UnixNano(), "random seed")
	dyn := kvFlag{}
	fs.Var(dyn, "D", "key=value configuration")
	o := &options{mode: mode}
	if mode == "standalone-job" {
		fs.StringVar(&o.job.className, "job-classname", "", "job main class")
		fs.StringVar(&o.job.jobID, "job-id", "", "fixed job id")
		fs.StringVar(&o.job.fromSavepoint, "fromSavepoint", "", "savepoint to restore")
		fs.StringVar(&o.job.fromSavepoint, "s", "", "savepoint to restore")
		fs.BoolVar(&o.job.allowNonRestored, "allowNonRestoredState", false, "allow non-restored state")
		fs.BoolVar(&o.job.allowNonRestored, "n", false, "allow non-restored state")
	}
	flagArgs, programArgs := splitProgramArgs(fs, args)
	if err := fs.Parse(splitDynamic(flagArgs)); err != nil {
		return nil, err
	}
	o.job.args = append(fs.Args(), programArgs...)
	conf, err := loadConf(*confDir, os.Getenv("FLINK_PROPERTIES"))
	if err != nil {
		return nil, err
	}
	for k, v := range dyn {
		conf[k] = v
	}
	o.conf, o.seed = conf, *seed
	return o, nil
}

// splitProgramArgs splits args at the first token that is not one of fs's flags (or at "--"):
// like Flink's entry point, options come first and everything after them belongs to the job.
// -h and --help are flags wherever they stand among the options.
func splitProgramArgs(fs *flag.FlagSet, args []string) (flags, program []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return args[:i], args[i+1:]
		}
		name := strings.TrimLeft(a, "-")
		name, _, hasValue := strings.Cut(name, "=")
		if a == "-h" || a == "-help" || a == "--help" || (strings.HasPrefix(a, "-D") && len(a) > 2) {
			continue // help (flag.ErrHelp: usage, not a JobManager), or Flink's -Dkey=value
		}
		f := fs.Lookup(name)
		if !strings.HasPrefix(a, "-") || f == nil {
			return args[:i], args[i:]
		}
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); !hasValue && (!ok || !bf.IsBoolFlag()) {
			i++ // the flag's value
		}
	}
	return args, nil
}

// splitDynamic spells Flink's -Dkey=value among the options as -D key=value, which the flag
// package reads (it would take -Dkey=value for an unknown flag named "Dkey").
func splitDynamic(args []string) []string {
	out := make([]string, 0, len(args))
	for _, a := range args {
		if kv, ok := strings.CutPrefix(a, "-D"); ok && kv != "" {
			out = append(out, "-D", kv)
			continue
		}
		out = append(out, a)
	}
	return out
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// loadConf reads config.yaml (standard YAML, nested keys flattened) or else flink-conf.yaml
// (Flink's line-by-line legacy format) from dir, as fakeflink/image spells Flink's rules, then
// applies the "key: value" lines of properties (FLINK_PROPERTIES). A missing directory gives
// an empty configuration.
func loadConf(dir, properties string) (map[string]string, error) {
	conf := map[string]string{}
	for _, name := range []string{image.YAMLConfigFile, image.LegacyConfigFile} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if name == image.LegacyConfigFile {
			conf, _ = image.ParseLegacyConfig(string(data))
			break
		}
		if conf, err = image.ParseYAMLConfig(string(data)); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		break
	}
	for _, line := range strings.Split(properties, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) != "" && !strings.HasPrefix(strings.TrimSpace(k), "#") {
			conf[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return conf, nil
}

func confInt(conf map[string]string, key string, def int) int {
	if n, err := strconv.Atoi(conf[key]); err == nil {
		return n
	}
	return def
}
