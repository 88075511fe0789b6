package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCommands(t *testing.T) {
	dir := t.TempDir()
	golden, err := os.ReadFile("../../scenarios/testdata/scripts/savepoint_upgrade.txt")
	if err != nil {
		t.Fatal(err)
	}
	tampered := filepath.Join(dir, "tampered.txt")
	if err := os.WriteFile(tampered, []byte(strings.Replace(string(golden), "SavepointCompleted", "SavepointSkipped", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		args    []string
		wantErr string
	}{
		"run a scripted scenario":   {args: []string{"run", "--timeline", filepath.Join(dir, "t.txt"), "../../scenarios/testdata/scripts/savepoint_upgrade.txt"}},
		"sweep a few seeds":         {args: []string{"sweep", "--seeds", "3", "--workers", "1"}},
		"demo on the fake backend":  {args: []string{"demo", "--backend", "fake", "--timeline", filepath.Join(dir, "t.html")}},
		"unknown command":           {args: []string{"fly"}, wantErr: "unknown command"},
		"check a script's goldens":  {args: []string{"run", "--check", "../../scenarios/testdata/scripts/savepoint_upgrade.txt"}},
		"check a tampered golden":   {args: []string{"run", "--check", tampered}, wantErr: "differs from its golden output"},
		"run without a file":        {args: []string{"run"}, wantErr: "one scenario file"},
		"a missing scenario file":   {args: []string{"run", filepath.Join(dir, "nope.txt")}, wantErr: "no such file"},
		"an unknown backend":        {args: []string{"demo", "--backend", "kind"}, wantErr: "unknown backend"},
		"services at zero at once":  {args: []string{"services", "--at", "4,0"}, wantErr: "not a positive number"},
		"services with no creates":  {args: []string{"services", "--n", "0"}, wantErr: "--n must be positive"},
		"services with an argument": {args: []string{"services", "extra"}, wantErr: "no arguments"},
		"help":                      {args: []string{"help"}},
		"--help":                    {args: []string{"--help"}},
		"demo with an argument":     {args: []string{"demo", "extra-arg"}, wantErr: "no arguments"},
		"fleet with an argument":    {args: []string{"fleet", "--n", "1", "x"}, wantErr: "no arguments"},
		"fleet flag without =":      {args: []string{"fleet", "--n", "1", "--apiserver-flag", "etcd-compaction-interval"}, wantErr: "want name=value"},
		"fleet flag with dashes":    {args: []string{"fleet", "--n", "1", "--etcd-flag", "--snapshot-count=1"}, wantErr: "without leading dashes"},
		"a sweep of negative seeds": {args: []string{"sweep", "--seeds", "-3"}, wantErr: "at least 1"},
		"a command's -h":            {args: []string{"sweep", "-h"}, wantErr: "help requested"},
		"replay a seed":             {args: []string{"replay", "--seed", "2", "--steps", "5", "--timeline", filepath.Join(dir, "r.html")}},
		"replay without a seed":     {args: []string{"replay"}, wantErr: "needs --seed"},
		"autoscale a day":           {args: []string{"autoscale", "--out", filepath.Join(dir, "a.html")}},
		"autoscale a bad option": {
			args: []string{"autoscale", "--out", filepath.Join(dir, "b.html"), "-D", "job.autoscaler.utilization.target=3"}, wantErr: "utilization.target",
		},
		"autoscale no workload": {
			args: []string{"autoscale", "--out", filepath.Join(dir, "b.html"), "-D", "fakeflink.workload.input=bursts:oops"}, wantErr: "fakeflink.workload.input",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := run(tc.args)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("run %v: %v", tc.args, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("run %v: error %v, want one containing %q", tc.args, err, tc.wantErr)
			}
		})
	}
	if data, err := os.ReadFile(filepath.Join(dir, "a.html")); err != nil || strings.Count(string(data), "stroke-dasharray") < 2 {
		t.Errorf("the autoscale chart marks fewer than two decisions (%v)", err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "r.html")); err != nil || !strings.Contains(string(data), "<svg") {
		t.Errorf("the replay wrote no timeline (%v)", err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "t.txt")); err != nil || !strings.Contains(string(data), "SavepointCompleted") {
		t.Errorf("the run's text timeline lacks the savepoint (%v):\n%s", err, data)
	}
}
