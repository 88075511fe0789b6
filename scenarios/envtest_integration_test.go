//go:build integration

package scenarios

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/flinkop/flinkop/harness"
	"github.com/flinkop/flinkop/harness/envtest"
)

// TestOnEnvtest runs the same scenarios on a real kube-apiserver and etcd: every scripted
// scenario (its directives must succeed with the invariants holding; job ids come from the
// API server's random UIDs, so the golden outputs are compared on the fake backend only) and a
// sample of the property sweep.
func TestOnEnvtest(t *testing.T) {
	env, err := envtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })

	runScripts(t, env.Backend)

	t.Run("cron two hours", func(t *testing.T) {
		t.Parallel()
		b, err := env.Backend()
		if err != nil {
			t.Fatal(err)
		}
		cronDay(t, b, 2)
	})

	t.Run("blue/green switch", func(t *testing.T) {
		t.Parallel()
		b, err := env.Backend()
		if err != nil {
			t.Fatal(err)
		}
		if err := BlueGreenSwitch(b, 1); err != nil {
			t.Fatal(err)
		}
	})

	// The two sweeps run before the parallel subtests start, one after the other: a sweep holds
	// rapid's global flags until it returns (Sweep would wait for the other one anyway).
	t.Run("hostile sample", func(t *testing.T) {
		// The API server itself refuses some hostile names and specs (CRD schema, name rules):
		// what this sample adds to the fake backend's sweep is the first applies. A short run
		// keeps that (a hostile run's actions advance up to two minutes of virtual time each,
		// and a 50-action run took five minutes here with -race).
		sum, err := Sweep(SweepOptions{Seeds: 1, BaseSeed: 20261122, Workers: 1, Steps: 10, NewBackend: env.Backend, Hostile: true})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Seeds != 1 || len(sum.Violations) > 0 {
			t.Errorf("%d of %d hostile runs broke an invariant on envtest:\n%s", len(sum.Violations), sum.Seeds, sum)
		}
	})

	t.Run("sweep sample", func(t *testing.T) {
		sum, err := Sweep(SweepOptions{Seeds: 2, BaseSeed: 20261122, Workers: 1, NewBackend: env.Backend})
		if err != nil {
			t.Fatal(err)
		}
		t.Log(sum)
		if sum.Seeds != 2 || sum.Actions == 0 {
			t.Errorf("sweep ran %d seeds with %d actions, want 2 seeds with actions", sum.Seeds, sum.Actions)
		}
		if len(sum.Violations) > 0 {
			t.Errorf("%d violations on envtest:\n%s", len(sum.Violations), sum)
		}
	})
}

// runScripts runs every scripted scenario on backends from newBackend, in parallel subtests
// (they start once the calling test function returns).
func runScripts(t *testing.T, newBackend func() (harness.Backend, error)) {
	t.Helper()
	files, err := filepath.Glob("testdata/scripts/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripted scenarios (%v)", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			// Each script has its own namespace: two run at once (GOMAXPROCS on 2 cores),
			// which keeps the API server busy while the other waits on it.
			t.Parallel()
			b, err := newBackend()
			if err != nil {
				t.Fatal(err)
			}
			out := io.Discard
			if testing.Verbose() {
				out = t.Output()
			}
			if _, err := RunFile(f, b, 1, out); err != nil {
				t.Fatal(err)
			}
		})
	}
}
