//go:build integration

package envtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childEnv marks the run of TestKilledSandboxLeavesNoAPIServer that plays the sandbox.
const childEnv = "FLINKOP_PARENT_DEATH_CHILD"

// TestKilledSandboxLeavesNoAPIServer starts an API server WithParentDeath in a child process
// (this test again, as the sandbox), kills the child with SIGKILL, and holds kube-apiserver and
// etcd to dying with it: a killed sandbox leaves nothing running.
func TestKilledSandboxLeavesNoAPIServer(t *testing.T) {
	if out := os.Getenv(childEnv); out != "" {
		playSandbox(t, out)
		return
	}
	pidFile := filepath.Join(t.TempDir(), "pids")
	child := exec.Command(os.Args[0], "-test.run=^TestKilledSandboxLeavesNoAPIServer$", "-test.timeout=5m")
	child.Env = append(os.Environ(), childEnv+"="+pidFile)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	for deadline := time.Now().Add(2 * time.Minute); len(pids) < 2; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = child.Process.Kill()
			t.Fatal("the child never started its API server")
		}
		data, _ := os.ReadFile(pidFile)
		pids = pids[:0]
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		alive := []int{}
		for _, pid := range pids {
			if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil && !zombie(pid) {
				alive = append(alive, pid)
			}
		}
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range alive {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("processes %v outlived their killed sandbox by 30 s", alive)
		}
	}
}

// playSandbox starts an API server with parent death, writes the pids of its kube-apiserver
// and etcd to out, and waits to be killed.
func playSandbox(t *testing.T, out string) {
	t.Helper()
	o, err := WithParentDeath(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env, err := Start(o)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(os.Getpid()) {
			pids = append(pids, strconv.Itoa(pid))
		}
	}
	if err := os.WriteFile(out, []byte(strings.Join(pids, " ")), 0o600); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Minute) // killed long before
}

// zombie reports whether pid is a zombie (dead, not yet reaped by its new parent).
func zombie(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] == "Z"
}
