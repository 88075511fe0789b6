package config

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/util/wait"
	clocktesting "k8s.io/utils/clock/testing"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestNewLive(t *testing.T) {
	l, err := NewLive([]byte("kubernetes.operator.reconcile.interval: 15s\nkubernetes.operator.deployment.rollback.enabled: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	if o := l.Options(); o.ReconcileInterval != 15*time.Second || !o.RollbackEnabled || l.Flat()[KeyReconcileInterval] != "15s" {
		t.Errorf("options %+v, flat %v", o, l.Flat())
	}
	if d, err := NewLive(nil); err != nil || d.Options() != Defaults() {
		t.Errorf("no file: %+v, %v; want the defaults", d.Options(), err)
	}
	if _, err := NewLive([]byte(KeyReconcileInterval + ": 1")); err == nil {
		t.Error("an out-of-bounds option was taken")
	}
}

// TestLiveWatchReloads: a changed file takes effect at the next check, a broken one leaves
// the options in force, and a constraint holds across reloads.
func TestLiveWatchReloads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "operator.yaml")
	writeFile(t, path, KeyReconcileInterval+": 1 min\n")
	data, _ := os.ReadFile(path)
	l, err := NewLive(data)
	if err != nil {
		t.Fatal(err)
	}
	l.Constrain(func(o Options) Options { o.SnapshotResources = false; return o })
	clk := clocktesting.NewFakeClock(time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); l.Watch(ctx, path, time.Minute, clk, logr.Discard()) }()
	defer func() { cancel(); <-done }()

	// tick steps the clock past the next check and waits until the watcher has read the file.
	tick := func(want time.Duration) {
		t.Helper()
		poll := func(cond func() bool) error {
			return wait.PollUntilContextTimeout(ctx, time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) { return cond(), nil })
		}
		if err := poll(clk.HasWaiters); err != nil {
			t.Fatal("the watcher does not wait for its ticker")
		}
		clk.Step(time.Minute)
		_ = poll(func() bool { return l.Options().ReconcileInterval == want })
		if got := l.Options().ReconcileInterval; got != want {
			t.Fatalf("reconcile interval %s after a check, want %s", got, want)
		}
	}
	writeFile(t, path, KeyReconcileInterval+": 2 min\n"+KeySnapshotResources+": true\n")
	tick(2 * time.Minute)
	if l.Options().SnapshotResources {
		t.Error("a reload lifted the constraint")
	}
	writeFile(t, path, KeyReconcileInterval+": not a duration\n")
	if _, _, err := l.Reload(path); err == nil {
		t.Error("a broken file reloaded without an error")
	}
	tick(2 * time.Minute) // the options in force stay
	writeFile(t, path, KeyReconcileInterval+": 3 min\n")
	tick(3 * time.Minute)
}

func TestLiveForNamespace(t *testing.T) {
	if _, err := NewLive([]byte(NamespacePrefix + "team-b." + KeyReconcileInterval + ": 1\n")); err == nil {
		t.Error("a namespace's out-of-bounds value was taken")
	}
	if _, err := NewLive([]byte(KeyDynamicConfigInterval + ": 1 ms\n")); err == nil {
		t.Error("an out-of-bounds check interval was taken")
	}
	l, err := NewLive([]byte(NamespacePrefix + "team-a." + KeyReconcileInterval + ": 2 min\n" +
		NamespacePrefix + "team-a.taskmanager.numberOfTaskSlots: 4\n"))
	if err != nil {
		t.Fatal(err)
	}
	if o, err := l.For("team-a"); err != nil || o.ReconcileInterval != 2*time.Minute {
		t.Errorf("team-a: %s, %v; want its 2 min", o.ReconcileInterval, err)
	}
	if o, err := l.For("team-c"); err != nil || o != Defaults() {
		t.Errorf("team-c: %+v, %v; want the operator-wide options", o, err)
	}
}

func TestDynamicConfig(t *testing.T) {
	for name, tc := range map[string]struct {
		flat     map[string]string
		on       bool
		interval time.Duration
		wantErr  bool
	}{
		"defaults":        {on: true, interval: DefaultDynamicConfigInterval},
		"Apache defaults": {flat: map[string]string{KeyDynamicConfig: "true", KeyDynamicConfigInterval: "5 min"}, on: true, interval: 5 * time.Minute},
		"off":             {flat: map[string]string{KeyDynamicConfig: "false"}, interval: DefaultDynamicConfigInterval},
		"every 30 s":      {flat: map[string]string{KeyDynamicConfigInterval: "30 s"}, on: true, interval: 30 * time.Second},
		"too often":       {flat: map[string]string{KeyDynamicConfigInterval: "10 ms"}, wantErr: true},
		"not a bool":      {flat: map[string]string{KeyDynamicConfig: "yes"}, wantErr: true},
	} {
		t.Run(name, func(t *testing.T) {
			on, interval, err := DynamicConfig(tc.flat)
			if (err != nil) != tc.wantErr || (!tc.wantErr && (on != tc.on || interval != tc.interval)) {
				t.Errorf("DynamicConfig = %v, %s, %v; want %v, %s, error %v", on, interval, err, tc.on, tc.interval, tc.wantErr)
			}
		})
	}
}
