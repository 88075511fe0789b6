package fleet

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// parseStat reads the pid, command (spaces and parentheses included), parent and CPU time of
// a /proc/PID/stat line, and refuses a line it cannot read.
func TestParseStat(t *testing.T) {
	type parsed struct {
		Pid, Ppid int
		Comm      string
		CPU       time.Duration
		OK        bool
	}
	tail := " 0 0 0 0 0 0 0 0 0 250 50 0 0 20 0 1 0 100 0 0"
	for name, tc := range map[string]struct {
		line string
		want parsed
	}{
		"plain":            {"42 (etcd) S 7" + tail, parsed{42, 7, "etcd", 3 * time.Second, true}},
		"comm with spaces": {"9 (a (b) c) R 1" + tail, parsed{9, 1, "a (b) c", 3 * time.Second, true}},
		"no parentheses":   {"9 etcd S 1" + tail, parsed{}},
		"cut short":        {"9 (etcd) S 1 0 0", parsed{}},
		"not a number":     {"9 (etcd) S x" + tail, parsed{}},
	} {
		t.Run(name, func(t *testing.T) {
			var got parsed
			got.Pid, got.Comm, got.Ppid, got.CPU, got.OK = parseStat(tc.line)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("parseStat (-want +got):\n%s", diff)
			}
		})
	}
}

// processCPU counts this process as the harness and a child by its command name, and
// cpuSince keeps only what grew.
func TestProcessCPU(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Fatalf("no /proc: %v", err) // the benchmark runs on Linux
	}
	before := processCPU()
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; sleep 5")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
		_ = make([]byte, 1<<10) // this process works too
	}
	var used map[string]time.Duration
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if used = cpuSince(processCPU(), before); used["sh"] > 0 {
			break
		}
	}
	if used[harnessProcess] <= 0 || used["sh"] <= 0 {
		t.Fatalf("CPU by process %v: want the harness's and sh's", used)
	}
	if got := cpuSince(map[string]time.Duration{"a": time.Second, "b": time.Second}, map[string]time.Duration{"a": time.Second}); !cmp.Equal(got, map[string]time.Duration{"b": time.Second}) {
		t.Errorf("cpuSince = %v, want only b", got)
	}
}

// cpuSplit lists the processes most first, with each share of the machine over the wall time.
func TestCPUSplit(t *testing.T) {
	got := cpuSplit(map[string]time.Duration{"etcd": 10 * time.Second, "kube-apiserver": 30 * time.Second}, 20*time.Second, 2)
	want := "kube-apiserver 30 s (75 %), etcd 10 s (25 %), together 100 % of 2 CPUs × 20 s"
	if got != want {
		t.Errorf("cpuSplit = %q, want %q", got, want)
	}
	if got := cpuSplit(nil, time.Second, 2); got != "not measured" {
		t.Errorf("cpuSplit(nil) = %q", got)
	}
}
