package image

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Program is the job an application cluster runs.
type Program struct {
	// Jar is the jar the job class was found in.
	Jar string
	// Class is the job's main class.
	Class string
	// Args are the program arguments.
	Args []string
	// JobID is --job-id ("" when not given).
	JobID string
	// FromSavepoint is --fromSavepoint, else execution.savepoint.path.
	FromSavepoint string
}

// ClassFlink is the exception the application entrypoint fails with when it cannot build the
// program.
const ClassFlink = "org.apache.flink.util.FlinkException"

const classParse = "org.apache.flink.runtime.entrypoint.FlinkParseException"

var jobIDPattern = regexp.MustCompile(`^[0-9a-fA-F]{32}$`)

// applicationOptions are standalone-job's options that take a value, by every spelling.
var applicationOptions = map[string]string{
	"-c": "configDir", "--configDir": "configDir", "-r": "webui-port", "--webui-port": "webui-port",
	"-h": "host", "--host": "host", "-j": "job-classname", "--job-classname": "job-classname",
	"-jid": "job-id", "--job-id": "job-id", "-s": "fromSavepoint", "--fromSavepoint": "fromSavepoint",
	"-rm": "restoreMode", "--restoreMode": "restoreMode", "-D": "D",
}

// applicationFlags are standalone-job's options without a value.
var applicationFlags = map[string]string{"-n": "allowNonRestoredState", "--allowNonRestoredState": "allowNonRestoredState"}

// applicationProgram parses standalone-job's arguments as its command line parser does
// (options first; the first argument that is not one of its options starts the program
// arguments) and finds the job class on the user classpath.
func applicationProgram(args []string, conf map[string]string, jars map[string]Jar) (*Program, *Failure) {
	opts := map[string]string{}
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if kv, ok := strings.CutPrefix(a, "-D"); ok && kv != "" {
			k, v, _ := strings.Cut(kv, "=")
			conf[k] = v
			continue
		}
		if _, ok := applicationFlags[a]; ok {
			opts[applicationFlags[a]] = "true"
			continue
		}
		name, ok := applicationOptions[a]
		if !ok {
			break // the program's arguments begin
		}
		if i+1 == len(args) {
			return nil, fail(1, classParse, "Failed to parse the command line arguments. Missing argument for option: "+strings.TrimLeft(a, "-"))
		}
		i++
		if name == "D" {
			k, v, _ := strings.Cut(args[i], "=")
			conf[k] = v
			continue
		}
		opts[name] = args[i]
	}
	if host := opts["host"]; host != "" {
		conf["jobmanager.rpc.address"] = host // ClusterEntrypoint#loadConfiguration
	}
	prog := &Program{Args: slices.Clone(args[i:]), JobID: opts["job-id"], FromSavepoint: opts["fromSavepoint"]}
	if prog.JobID != "" && !jobIDPattern.MatchString(prog.JobID) {
		return nil, fail(1, classParse, fmt.Sprintf("Failed to parse '--job-id' option: %s is not a valid job id: it must be a 32 character hexadecimal string", prog.JobID))
	}
	if prog.FromSavepoint == "" {
		prog.FromSavepoint = conf["execution.savepoint.path"]
	}
	classpath := UserClasspath(conf, jars)
	class := opts["job-classname"]
	if class == "" {
		var entries []string
		for _, jar := range classpath {
			if jars[jar].MainClass != "" {
				entries = append(entries, jar)
			}
		}
		switch len(entries) {
		case 0:
			return nil, programFailure("JobClassNotFound: Failed to find job JAR on class path. Please provide the job class name explicitly.")
		case 1:
			prog.Jar, prog.Class = entries[0], jars[entries[0]].MainClass
			return prog, nil
		default:
			return nil, programFailure("Multiple JAR archives with entry classes found on classpath. Please provide the job class name explicitly.")
		}
	}
	for _, jar := range classpath {
		if jars[jar].Has(class) {
			prog.Jar, prog.Class = jar, class
			return prog, nil
		}
	}
	return nil, programFailure(fmt.Sprintf("Could not find the provided job class (%s) in the user lib directory (%s).", class, UsrLib))
}

// programFailure is the application entrypoint giving up before the cluster starts.
func programFailure(msg string) *Failure {
	return &Failure{ExitCode: 1, Class: ClassFlink, Message: msg, Log: []string{
		"ERROR org.apache.flink.container.entrypoint.StandaloneApplicationClusterEntryPoint [] - Could not create application program.",
		ClassFlink + ": " + msg,
	}}
}

// UserClasspath is the application entrypoint's user classpath: the jars under usrlib, then
// the file: URLs of pipeline.classpaths (';'-separated). pipeline.jars is not read here.
func UserClasspath(conf map[string]string, jars map[string]Jar) []string {
	var out []string
	for path := range jars {
		if strings.HasPrefix(path, UsrLib+"/") {
			out = append(out, path)
		}
	}
	slices.Sort(out)
	for _, u := range strings.Split(conf["pipeline.classpaths"], ";") {
		if p, ok := strings.CutPrefix(strings.TrimSpace(u), "file:"); ok {
			p = "/" + strings.TrimLeft(p, "/")
			if _, exists := jars[p]; exists && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// ExampleJars are the example jars of the official image, with their job classes.
func ExampleJars() map[string]Jar {
	return map[string]Jar{
		FlinkHome + "/examples/streaming/StateMachineExample.jar": {MainClass: "org.apache.flink.streaming.examples.statemachine.StateMachineExample"},
		FlinkHome + "/examples/streaming/WordCount.jar":           {MainClass: "org.apache.flink.streaming.examples.wordcount.WordCount"},
		FlinkHome + "/examples/streaming/TopSpeedWindowing.jar":   {MainClass: "org.apache.flink.streaming.examples.windowing.TopSpeedWindowing"},
		FlinkHome + "/examples/streaming/WindowJoin.jar":          {MainClass: "org.apache.flink.streaming.examples.join.WindowJoin"},
		FlinkHome + "/examples/batch/WordCount.jar":               {MainClass: "org.apache.flink.examples.java.wordcount.WordCount"},
	}
}
