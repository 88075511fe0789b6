// Command flinksim runs the Flinkop operator in the deterministic simulation harness: the
// real reconciler with fakeflink JobManagers behind a pod simulator, on a virtual clock, on an
// embedded Kubernetes API (a real kube-apiserver from envtest when its binaries are in
// ./bin/k8s, otherwise the fake client). No cluster is needed.
//
//	flinksim demo  [--seed N] [--timeline FILE] [--backend auto|fake|envtest]
//	flinksim run   [--seed N] [--timeline FILE] [--backend fake|envtest] [--check] SCENARIO.txt
//	flinksim sweep [--seeds N] [--base-seed S] [--workers W] [--steps A]
//	flinksim replay --seed S [--steps A] [--hostile] [--timeline FILE]
//	flinksim sandbox [--kubeconfig FILE] [--operator-config FILE] [--metrics-bind-address ADDR] [--webhook]
//	                 [--real-jars [--jar-allowed-hosts h,*.d] [--jar-allowed-cidrs c,c] [--jar-file-root DIR]]
//	flinksim fleet [--n N] [--slow P] [--parallelism W] [--changes C] [--steady D] [--bystanders] [--autoscaled] [--mode native|standalone]
//	flinksim services [--n N] [--at 4,16,64,256]
//	flinksim autoscale [--duration D] [--every D] [--out FILE] [-D key=value]...
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/flinkop/flinkop/harness"
	"github.com/flinkop/flinkop/harness/envtest"
	"github.com/flinkop/flinkop/scenarios"
)

const usage = `usage:
  flinksim demo  [--seed N] [--timeline FILE] [--backend auto|fake|envtest]
  flinksim run   [--seed N] [--timeline FILE] [--backend fake|envtest] [--check] SCENARIO.txt
  flinksim sweep [--seeds N] [--base-seed S] [--workers W] [--steps A]
  flinksim replay --seed S [--steps A] [--hostile] [--timeline FILE]
  flinksim sandbox [--kubeconfig FILE] [--operator-config FILE] [--metrics-bind-address ADDR] [--webhook] [--real-jars ...]
  flinksim fleet [--n N] [--slow P] [--parallelism W] [--changes C] [--steady D] [--bystanders] [--autoscaled] [--mode native|standalone]
  flinksim services [--n N] [--at 4,16,64,256]
  flinksim autoscale [--duration D] [--every D] [--out FILE] [-D key=value]...`

func main() {
	err := run(os.Args[1:])
	switch {
	case errors.Is(err, flag.ErrHelp): // a command's -h: its flags are printed
	case err != nil:
		fmt.Fprintln(os.Stderr, "flinksim:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, usage)
		return errors.New("missing command")
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		fmt.Println(usage)
		return nil
	case "demo":
		return demo(args[1:])
	case "run":
		return runScenario(args[1:])
	case "sweep":
		return sweep(args[1:])
	case "replay":
		return replay(args[1:])
	case "sandbox":
		return sandbox(args[1:])
	case "fleet":
		return fleetBench(args[1:])
	case "services":
		return services(args[1:])
	case "autoscale":
		return autoscaleDemo(args[1:])
	}
	fmt.Fprintln(os.Stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}

func demo(args []string) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	seed := fs.Int64("seed", 1, "seed of the simulated world (a run replays exactly from it)")
	timeline := fs.String("timeline", "flinksim-timeline.html", "file the full timeline is written to (.html: a page with an SVG timeline; otherwise text)")
	which := fs.String("backend", "auto", "Kubernetes API: envtest (a real kube-apiserver from ./bin/k8s), fake, or auto (envtest when its binaries exist)")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	b, stop, err := backend(*which)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Printf("flinksim demo: the real Flinkop reconciler, fakeflink, %s, virtual time, seed %d\n\n", describe(b), *seed)
	w, err := harness.RunDemoOn(os.Stdout, b, *seed)
	if w != nil && *timeline != "" {
		w.Trace.Header = []string{
			fmt.Sprintf("flinksim demo on %s, seed %d", describe(b), *seed),
			fmt.Sprintf("replay: flinksim demo --seed %d --backend %s", *seed, *which),
		}
		if werr := writeTimeline(w.Trace, *timeline); werr != nil {
			return werr
		}
		fmt.Println("Timeline written to", *timeline)
	}
	return err
}

func runScenario(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	seed := fs.Int64("seed", 1, "seed of the simulated world")
	timeline := fs.String("timeline", "", "also write the timeline to this file (.html or text)")
	which := fs.String("backend", "fake", "Kubernetes API: fake or envtest")
	check := fs.Bool("check", false, "compare each directive's output with the file's golden output, print the differences, and fail on any")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("run takes one scenario file (see scenarios/testdata/scripts)")
	}
	b, stop, err := backend(*which)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Printf("# %s on %s, seed %d\n", fs.Arg(0), describe(b), *seed)
	var out io.Writer = os.Stdout
	var got bytes.Buffer
	if *check {
		out = &got
	}
	s, err := scenarios.RunFile(fs.Arg(0), b, *seed, out)
	if *check && err == nil {
		err = checkGolden(fs.Arg(0), got.String())
	}
	if s != nil && *timeline != "" {
		s.World().Trace.Header = []string{
			fmt.Sprintf("scenario %s on %s, seed %d", fs.Arg(0), describe(b), *seed),
			fmt.Sprintf("replay: flinksim run --seed %d --backend %s %s", *seed, *which, fs.Arg(0)),
		}
		if werr := writeTimeline(s.World().Trace, *timeline); werr != nil {
			return werr
		}
	}
	return err
}

func sweep(args []string) error {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	seeds := fs.Int("seeds", 1000, "number of runs")
	base := fs.Uint64("base-seed", 1, "run i uses seed base-seed+i")
	workers := fs.Int("workers", 0, "parallel workers (0: one per CPU)")
	steps := fs.Int("steps", scenarios.DefaultSteps, "average number of actions per run")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *seeds < 1 || *workers < 0 || *steps < 1 {
		return fmt.Errorf("sweep needs --seeds and --steps of at least 1 and --workers of at least 0 (got %d, %d, %d)", *seeds, *steps, *workers)
	}
	fmt.Printf("flinksim sweep: %d runs of the state machine (fake backend), seeds %d…%d\n", *seeds, *base, *base+uint64(*seeds)-1)
	sum, err := scenarios.Sweep(scenarios.SweepOptions{Seeds: *seeds, BaseSeed: *base, Workers: *workers, Steps: *steps})
	if err != nil {
		return err
	}
	fmt.Print(sum)
	if n := len(sum.Violations); n > 0 {
		return fmt.Errorf("%d of %d runs violated an invariant", n, sum.Seeds)
	}
	return nil
}

// replay runs one sweep seed again and writes its timeline: the command a sweep prints for
// each violation.
func replay(args []string) error {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	seed := fs.Uint64("seed", 0, "the sweep seed to run again (required)")
	steps := fs.Int("steps", scenarios.DefaultSteps, "average number of actions, as the sweep ran it")
	hostile := fs.Bool("hostile", false, "the seed is of a sweep of hostile-input runs only, as the sweep's replay command says")
	timeline := fs.String("timeline", "", "file the run's timeline is written to (default flinksim-replay-<seed>.html; .html or text)")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *seed == 0 || *steps < 1 {
		return errors.New("replay needs --seed (a sweep's seed, 1 or more) and --steps of at least 1")
	}
	if *timeline == "" {
		*timeline = fmt.Sprintf("flinksim-replay-%d.html", *seed)
	}
	fmt.Printf("flinksim replay: seed %d, %d steps (fake backend)\n", *seed, *steps)
	st, v, err := scenarios.Replay(*seed, *steps, *hostile)
	if err != nil {
		return err
	}
	if st.World != nil {
		outcome := "passed"
		if v != nil {
			outcome = "violated an invariant (marked in red)"
		}
		st.World.Trace.Header = []string{
			fmt.Sprintf("sweep seed %d, %d steps, fake backend: %s", *seed, *steps, outcome),
			fmt.Sprintf("replay: flinksim replay --seed %d --steps %d", *seed, *steps),
		}
		if err := writeTimeline(st.World.Trace, *timeline); err != nil {
			return err
		}
		fmt.Println("Timeline written to", *timeline)
	}
	if v != nil {
		fmt.Println(v.Report)
		return fmt.Errorf("seed %d violated an invariant", *seed)
	}
	fmt.Println("no violation")
	return nil
}

// checkGolden compares a script run's output with the script file, which holds the golden
// output under each directive: the differences are printed, and any is an error.
func checkGolden(path, got string) error {
	want, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := func(s string) []string { return strings.Split(strings.TrimRight(s, "\n"), "\n") }
	if diff := cmp.Diff(lines(string(want)), lines(got)); diff != "" {
		fmt.Printf("%s: the run differs from the golden output (-golden +run):\n%s", path, diff)
		return fmt.Errorf("%s differs from its golden output (go test ./scenarios -run 'TestScripts$' -update rewrites the goldens)", path)
	}
	fmt.Printf("%s: every directive's output matches the golden one\n", path)
	return nil
}

// backend returns the chosen Kubernetes API and how to stop it.
func backend(which string) (harness.Backend, func(), error) {
	if which == "auto" {
		which = "fake"
		if dir, err := envtest.AssetsDir(); err == nil && envtest.HasAssets(dir) {
			which = "envtest"
		}
	}
	switch which {
	case "fake":
		b, err := harness.FakeBackend()
		return b, func() {}, err
	case "envtest":
		env, err := envtest.Start()
		if err != nil {
			return nil, nil, err
		}
		stop := func() { _ = env.Stop() }
		b, err := env.Backend()
		if err != nil {
			stop()
			return nil, nil, err
		}
		return b, stop, nil
	}
	return nil, nil, fmt.Errorf("unknown backend %q (fake, envtest, auto)", which)
}

func describe(b harness.Backend) string {
	if b.Name() == "envtest" {
		return "a real kube-apiserver + etcd (envtest backend, namespace " + b.Namespace() + ")"
	}
	return "a fake Kubernetes API (fake backend; `make envtest-assets` gives a real one)"
}

func writeTimeline(t *harness.Trace, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if strings.HasSuffix(path, ".html") {
		err = t.WriteHTML(f)
	} else {
		_, err = f.WriteString(t.String())
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// parseNoArgs parses a command's flags and refuses arguments after them: a stray word is a
// mistake (a misspelt flag, a file given to a command that reads none), not something to
// ignore.
func parseNoArgs(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s takes no arguments, got %q", fs.Name(), fs.Args())
	}
	return nil
}
