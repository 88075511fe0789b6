//go:build integration

package fleet

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestHungJobManagersDoNotDelayHealthyOnes runs a small fleet as the operator is wired and
// holds it to the latency property: with a quarter of the JobManagers hung, spec changes of
// the healthy deployments are still acted on within a bound far below the REST timeout. The
// broken variant (one reconcile worker, as before the parallelism option) must miss it.
func TestHungJobManagersDoNotDelayHealthyOnes(t *testing.T) {
	const bound = 3 * time.Second
	for name, tc := range map[string]struct {
		parallelism int
		noWave      bool
		wantWithin  bool
	}{
		"default parallelism": {parallelism: 0, wantWithin: true},
		"one worker (broken)": {parallelism: 1, noWave: true, wantWithin: false},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rep, err := Run(context.Background(), Config{
				N: 6, SlowPercent: 34, Parallelism: tc.parallelism, Changes: 4, NoWave: tc.noWave,
				ReconcileInterval: 2 * time.Second, Timeout: 3 * time.Minute, Log: t.Output(),
			})
			if err != nil {
				t.Fatal(err)
			}
			if rep.SteadyWrites != 0 {
				t.Errorf("%d API writes at steady state, want none: %v, events %v", rep.SteadyWrites, rep.SteadyWritesByKind, rep.SteadyEvents)
			}
			if (rep.Wave > 0) == tc.noWave {
				t.Errorf("upgrade wave measured %s with NoWave %v", rep.Wave, tc.noWave)
			}
			if len(rep.Latency) != 4 || len(rep.SlowLatency) != 4 {
				t.Fatalf("latencies %v / %v, want 4 each", rep.Latency, rep.SlowLatency)
			}
			if p99 := pct(rep.SlowLatency, 99); (p99 < bound) != tc.wantWithin {
				t.Errorf("first action p99 %s with 2 of 6 JobManagers hung (bound %s, want within: %v); all: %v",
					p99, bound, tc.wantWithin, rep.SlowLatency)
			}
		})
	}
}

// TestOperatorApart runs the flink-operator binary as its own process against a small fleet:
// its API requests must reach the API server through the counting proxy, its Flink calls the
// simulated JobManagers through the REST proxy, and its memory and CPU must be read; the
// floor then runs on an API server of its own.
func TestOperatorApart(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "flink-operator")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/flink-operator")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	rep, err := Run(context.Background(), Config{
		N: 3, ConvergeOnly: true, FreshFloor: true, OperatorBinary: bin, ReconcileInterval: 5 * time.Second, Timeout: 3 * time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Apart || rep.OperatorHeapMB <= 0 || rep.OperatorRSSMB <= 0 || rep.OperatorPeakRSSMB < rep.OperatorRSSMB || rep.OperatorCPU <= 0 {
		t.Errorf("operator process measured apart %v: heap %.1f MB, RSS %.1f MB, peak %.1f MB, CPU %s",
			rep.Apart, rep.OperatorHeapMB, rep.OperatorRSSMB, rep.OperatorPeakRSSMB, rep.OperatorCPU)
	}
	// One JobManager Deployment per deployment: native mode, Flink's resource manager makes the
	// TaskManager pods.
	if rep.ConvergeWrites < 3*10 || rep.ConvergeWritesByKind["POST deployments"] < 3 {
		t.Errorf("API writes to converge %d (%v): the proxy did not count the operator's requests", rep.ConvergeWrites, rep.ConvergeWritesByKind)
	}
	if rep.SteadyWrites != 0 || rep.SteadyRESTPerDeployment <= 0 {
		t.Errorf("steady state: %d API writes (want 0), %.1f Flink calls per deployment (want some)", rep.SteadyWrites, rep.SteadyRESTPerDeployment)
	}
	if !rep.FreshFloor || rep.FloorParallel <= 0 {
		t.Errorf("floor on a fresh API server: %v, %s", rep.FreshFloor, rep.FloorParallel)
	}
}
