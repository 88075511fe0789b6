package main

import (
	"context"
	"errors"
	"flag"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/flinkop/flinkop/operator/flink"
)

func TestLoadConf(t *testing.T) {
	dir := t.TempDir()
	yaml := "taskmanager.numberOfTaskSlots: 2\nstate:\n  savepoints.dir: file:///sp\nrest:\n  port: 9081\n"
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := loadConf(dir, "rest.port: 8082\n# a comment: ignored\nparallelism.default: 4\n")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"taskmanager.numberOfTaskSlots": "2", "state.savepoints.dir": "file:///sp", "rest.port": "8082", "parallelism.default": "4",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("loadConf mismatch (-want +got):\n%s", diff)
	}
	legacy := t.TempDir()
	_ = os.WriteFile(filepath.Join(legacy, "flink-conf.yaml"), []byte("jobmanager.rpc.address: jm\n"), 0o600)
	if got, _ := loadConf(legacy, ""); got["jobmanager.rpc.address"] != "jm" {
		t.Errorf("flink-conf.yaml not read: %v", got)
	}
	if got, err := loadConf(filepath.Join(dir, "missing"), ""); err != nil || len(got) != 0 {
		t.Errorf("missing conf dir: %v, %v", got, err)
	}
}

func TestHelp(t *testing.T) {
	if err := run(context.Background(), []string{"--help"}); err != nil {
		t.Errorf("--help: %v", err)
	}
	if err := run(context.Background(), []string{"bogus"}); err == nil || !strings.Contains(err.Error(), "unknown mode") {
		t.Errorf("unknown mode: %v", err)
	}
	// A mode's --help, before or after its -D options, is help: no JobManager starts.
	for _, args := range [][]string{{"--help", "-Drest.port=0"}, {"-Drest.port=0", "-h"}} {
		if _, err := parseFlags("jobmanager", args); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("jobmanager %v: %v, want flag.ErrHelp", args, err)
		}
	}
	// -Dkey=value, as Flink's scripts pass it, sets the key; so does -D key=value.
	o, err := parseFlags("jobmanager", []string{"--conf-dir", t.TempDir(), "-Drest.port=9000", "-D", "parallelism.default=3"})
	if err != nil || o.conf["rest.port"] != "9000" || o.conf["parallelism.default"] != "3" {
		t.Errorf("-D options: %v, %v", o, err)
	}
	// The program's own -D arguments stay the program's, whole.
	o, err = parseFlags("standalone-job", []string{"--conf-dir", t.TempDir(), "-Da=1", "--job-classname", "X", "input", "-Dprogram=1"})
	if err != nil || o.conf["a"] != "1" || o.conf["program"] != "" || !slices.Equal(o.job.args, []string{"input", "-Dprogram=1"}) {
		t.Errorf("standalone-job: %+v, %v", o, err)
	}
}

// TestStandaloneJobWithTaskManager runs an application JobManager and a TaskManager
// heartbeat against it, and watches the job through the operator's REST client.
func TestStandaloneJobWithTaskManager(t *testing.T) {
	t.Setenv("FLINK_PROPERTIES", "")
	o, err := parseFlags("standalone-job", []string{
		"--conf-dir", t.TempDir(), "--seed", "1",
		"-D", "taskmanager.numberOfTaskSlots=2", "-D", "parallelism.default=2", "-D", "heartbeat.timeout=10s",
		"-D", "kubernetes.cluster-id=app", "--job-classname", "org.example.Job", "--job-id", strings.Repeat("ab", 16), "--in", "x",
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"--in", "x"}, o.job.args); diff != "" {
		t.Errorf("program args (-want +got):\n%s", diff)
	}
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	jm, err := newJobManager(o, clk, durable{})
	if err != nil {
		t.Fatal(err)
	}
	srv, rpc := httptest.NewServer(jm.handler()), httptest.NewServer(jm.taskManagerHandler())
	defer srv.Close()
	defer rpc.Close()

	o.conf["taskmanager.resource-id"] = "app-taskmanager-1-1"
	target, _ := taskManagerURL(o)
	_, path, _ := strings.Cut(target, "/fakeflink/")
	if !strings.Contains(target, ":6123/") {
		t.Errorf("TaskManager heartbeats go to %s, want the JobManager's RPC port 6123", target)
	}
	target = rpc.URL + "/fakeflink/" + path
	if !heartbeat(context.Background(), rpc.Client(), target) {
		t.Fatal("TaskManager registration failed")
	}
	clk.Step(3 * time.Second)
	jm.tick()

	c := flink.NewClient(srv.URL)
	jobs, err := c.ListJobs(context.Background())
	if err != nil || len(jobs) != 1 || jobs[0].ID != strings.Repeat("ab", 16) || jobs[0].State != flink.JobRunning {
		t.Fatalf("jobs = %+v, %v; want the fixed job id RUNNING", jobs, err)
	}
	tms, _ := c.TaskManagers(context.Background())
	if len(tms) != 1 || tms[0].ID != "app-taskmanager-1-1" || tms[0].SlotsNumber != 2 {
		t.Errorf("taskmanagers = %+v", tms)
	}

	clk.Step(11 * time.Second) // no heartbeat for longer than heartbeat.timeout
	jm.tick()
	if tms, _ := c.TaskManagers(context.Background()); len(tms) != 0 {
		t.Errorf("TaskManager kept after its heartbeats stopped: %+v", tms)
	}
	if s, _ := c.JobState(context.Background(), jobs[0].ID); s != flink.JobRestarting && s != flink.JobFailed && s != flink.JobCreated {
		t.Errorf("job %s after losing its only TaskManager", s)
	}
}

func TestNativeArgs(t *testing.T) {
	cases := map[string]struct {
		args       []string
		mode, rest string
		ok         bool
	}{
		"session JobManager":     {[]string{"bash", "-c", "kubernetes-jobmanager.sh kubernetes-session"}, "jobmanager", "", true},
		"application JobManager": {[]string{"bash", "-c", "/opt/flink/bin/kubernetes-jobmanager.sh kubernetes-application -Da=b"}, modeApplication, "-Da=b", true},
		"TaskManager":            {[]string{"bash", "-c", "kubernetes-taskmanager.sh -D taskmanager.resource-id=p"}, "taskmanager", "-D taskmanager.resource-id=p", true},
		"an unknown target":      {[]string{"bash", "-c", "kubernetes-jobmanager.sh yarn"}, "", "", false},
		"a standalone command":   {[]string{"jobmanager"}, "", "", false},
	}
	for name, tc := range cases {
		mode, rest, ok := nativeArgs(tc.args)
		if mode != tc.mode || strings.Join(rest, " ") != tc.rest || ok != tc.ok {
			t.Errorf("%s: nativeArgs = %q %q %v, want %q %q %v", name, mode, rest, ok, tc.mode, tc.rest, tc.ok)
		}
	}
}
