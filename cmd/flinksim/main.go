// Command flinksim runs the Flinkop operator in the deterministic simulation harness: the
// real reconciler on a fake Kubernetes API, with fakeflink JobManagers behind a pod simulator,
// on a virtual clock. No cluster is needed.
//
//	flinksim demo [--seed N] [--timeline FILE]
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/flinkop/flinkop/harness"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "flinksim:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 || args[0] != "demo" {
		fmt.Fprintln(os.Stderr, "usage: flinksim demo [--seed N] [--timeline FILE]")
		return fmt.Errorf("unknown or missing command")
	}
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	seed := fs.Int64("seed", 1, "seed of the simulated world (a run replays exactly from it)")
	timeline := fs.String("timeline", "flinksim-timeline.html", "file the full timeline is written to (.html: a page with an SVG timeline; otherwise text)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	fmt.Println("flinksim demo: the real Flinkop reconciler, fakeflink, a fake Kubernetes API (fake backend), virtual time, seed", *seed)
	fmt.Println()
	w, err := harness.RunDemo(os.Stdout, *seed)
	if w != nil && *timeline != "" {
		if werr := writeTimeline(w.Trace, *timeline); werr != nil {
			return werr
		}
		fmt.Println("Timeline written to", *timeline)
	}
	return err
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
