package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/flinkop/flinkop/harness/autoscale"
)

// confFlags collects repeated -D key=value flags.
type confFlags map[string]string

func (c confFlags) String() string { return fmt.Sprint(map[string]string(c)) }

func (c confFlags) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return errors.New("want key=value")
	}
	c[strings.TrimSpace(k)] = strings.TrimSpace(v)
	return nil
}

// autoscaleDemo runs a job under the autoscaler in virtual time and writes the chart.
func autoscaleDemo(args []string) error {
	fs := flag.NewFlagSet("autoscale", flag.ContinueOnError)
	conf := confFlags(autoscale.DefaultConfig())
	fs.Var(conf, "D", "a key of the job's Flink configuration (fakeflink.workload.*, job.autoscaler.*, parallelism.default, pipeline.max-parallelism); repeatable")
	duration := fs.Duration("duration", 24*time.Hour, "virtual time to simulate")
	every := fs.Duration("every", time.Minute, "how often metrics are collected and a decision is asked for (the reconcile interval)")
	out := fs.String("out", "flinksim-autoscale.html", "the chart (an HTML page with SVG)")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *duration <= 0 || *duration > 31*24*time.Hour {
		return errors.New("--duration: want up to 31 days")
	}
	r, err := autoscale.FromConfig(conf, *duration, *every)
	if err != nil {
		return err
	}
	began := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tr, err := r.Simulate(began)
	if err != nil {
		return err
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if err := r.WriteHTML(f, tr, "flinksim autoscale: "+conf["fakeflink.workload.input"]); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Print(autoscale.Summarize(r, tr))
	fmt.Printf("chart: %s\n", *out)
	return nil
}
