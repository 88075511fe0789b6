package harness

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/flinkop/flinkop/chaos"
)

// fleetWorld returns a world of n running savepoint jobs job-0… on workers reconcile
// workers, with charge (nil: the default) as the cost of a Flink REST call.
func fleetWorld(t *testing.T, n, workers int, charge func(timedOut bool) time.Duration) (*World, *Checker, []string) {
	t.Helper()
	w, err := NewWorld(1)
	if err != nil {
		t.Fatal(err)
	}
	w.SetWorkers(workers)
	w.workers.charge = charge
	var names []string
	for i := range n {
		d := savepointJob()
		d.Name = fmt.Sprintf("job-%d", i)
		names = append(names, d.Name)
		if err := w.Apply(d); err != nil {
			t.Fatal(err)
		}
	}
	c := NewChecker(w)
	if err := c.StepUntil(w.Now().Add(time.Minute), nil, names...); err != nil {
		t.Fatal(err)
	}
	return w, c, names
}

// rescale changes the parallelism of the named deployment.
func rescale(t *testing.T, w *World, name string, p int32) {
	t.Helper()
	d, err := w.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	d.Spec.Job.Parallelism = &p
	if err := w.Apply(d); err != nil {
		t.Fatal(err)
	}
}

// TestLatencyInvariant changes a healthy deployment while a neighbour's JobManager hangs: with
// two workers the change is acted on at once; when every Flink REST call is slow (a broken
// variant: the operator's calls to healthy JobManagers queue behind a slow shared path), the
// latency invariant fires.
func TestLatencyInvariant(t *testing.T) {
	slow := func(timedOut bool) time.Duration {
		if timedOut {
			return clientTimeout
		}
		return 600 * time.Millisecond
	}
	for _, tc := range []struct {
		name   string
		charge func(bool) time.Duration
		fires  bool
	}{{"operator", nil, false}, {"every call slow", slow, true}} {
		t.Run(tc.name, func(t *testing.T) {
			w, c, names := fleetWorld(t, 3, 2, tc.charge)
			if err := (chaos.RESTTimeout{For: 10 * time.Minute}).Apply(w, names[0]); err != nil {
				t.Fatal(err)
			}
			if err := c.StepUntil(w.Now().Add(10*time.Second), nil, names...); err != nil {
				t.Fatal(err)
			}
			rescale(t, w, names[1], 1)
			rescale(t, w, names[0], 1)
			err := c.StepUntil(w.Now().Add(time.Minute), nil, names...)
			if got := err != nil && strings.Contains(err.Error(), "invariant L"); got != tc.fires {
				t.Fatalf("invariant L fired: %v, want %v (%v)\n%s", got, tc.fires, err, w.Trace)
			}
			if tc.fires {
				t.Logf("%v", err)
				return
			}
			if healthy, hung := countWaits(w.Waits(), names[1], names[0]); healthy != 1 || hung != 1 {
				t.Fatalf("waits seen: healthy with a hung neighbour %d, hung %d, want 1 and 1: %+v", healthy, hung, w.Waits())
			}
		})
	}
}

// countWaits counts the waits of a healthy resource with one hung neighbour, and of the hung
// resource.
func countWaits(waits []Wait, healthyName, hungName string) (healthy, hung int) {
	for _, wt := range waits {
		if wt.Resource == healthyName && wt.Healthy && wt.Hung == 1 {
			healthy++
		}
		if wt.Resource == hungName && !wt.Healthy {
			hung++
		}
	}
	return healthy, hung
}

// TestDutyInvariant lets a JobManager hang for an hour: the operator backs off and keeps its
// workers free; an operator whose Flink client had no timeout (a broken variant: each
// unanswered call holds the worker for 30 s) breaks the duty invariant. (So does an operator
// that polls the hung JobManager at its reconcile interval without backing off.)
func TestDutyInvariant(t *testing.T) {
	noTimeout := func(timedOut bool) time.Duration {
		if timedOut {
			return 30 * time.Second
		}
		return 0
	}
	for _, tc := range []struct {
		name   string
		charge func(bool) time.Duration
		fires  bool
	}{{"operator", nil, false}, {"no client timeout", noTimeout, true}} {
		t.Run(tc.name, func(t *testing.T) {
			w, c, names := fleetWorld(t, 2, 2, tc.charge)
			if err := (chaos.RESTTimeout{For: time.Hour}).Apply(w, names[0]); err != nil {
				t.Fatal(err)
			}
			err := c.StepUntil(w.Now().Add(time.Hour), nil, names...)
			if got := err != nil && strings.Contains(err.Error(), "invariant D"); got != tc.fires {
				t.Fatalf("invariant D fired: %v, want %v (%v)\n%s", got, tc.fires, err, w.Trace)
			}
		})
	}
}
