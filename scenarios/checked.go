package scenarios

import (
	"strings"
	"time"

	"pgregory.net/rapid"

	"github.com/flinkop/flinkop/chaos"
	"github.com/flinkop/flinkop/harness"
)

// checked is the base of every rapid machine: a world under the invariant checker, watching
// the resources the machine drives. It steps the world and checks the invariants after every
// step (run), after every action (Check), and injects faults (inject).
type checked struct {
	w         *harness.World
	checker   *harness.Checker
	resources []string
}

func newChecked(w *harness.World, resources ...string) checked {
	return checked{w: w, checker: harness.NewChecker(w), resources: resources}
}

// run lets virtual time pass, checking the invariants after every step.
func (c checked) run(t *rapid.T, d time.Duration) {
	if err := c.checker.StepUntil(c.w.Now().Add(d), nil, c.resources...); err != nil {
		t.Fatalf("%v\ntrace:\n%s", err, c.w.Trace)
	}
}

// Check fails the run on any invariant violation.
func (c checked) Check(t *rapid.T) {
	if v := c.checker.Check(c.resources...); len(v) > 0 {
		t.Fatalf("invariant violated at %s:\n  %s\ntrace:\n%s", c.w.Now().Sub(harness.Start), strings.Join(v, "\n  "), c.w.Trace)
	}
}

// inject draws a fault of classes, injects it into target (the checker hears of it, the trace
// shows it) and counts it in stats.
func (c checked) inject(t *rapid.T, classes []chaos.Fault, target string, stats *Stats) {
	c.injectFault(t, rapid.SampledFrom(classes).Draw(t, "fault"), target, stats)
}

// injectFault injects f into target and counts it in stats.
func (c checked) injectFault(t *rapid.T, f chaos.Fault, target string, stats *Stats) {
	if err := c.checker.Inject(f, target); err != nil {
		t.Fatal(err)
	}
	stats.Faults[f.Name()]++
}

// converge lets the world run for Settle and fails the run unless converged holds; then it lets
// Quiet pass and fails on any write of the resource meanwhile (version is its resourceVersion;
// invariant 5).
func (c checked) converge(t *rapid.T, what string, converged func() (bool, string), version func() string) {
	c.run(t, Settle)
	if ok, why := converged(); !ok {
		t.Fatalf("%s not converged %s after the last fault and spec change: %s\ntrace:\n%s", what, Settle, why, c.w.Trace)
	}
	rv := version()
	c.run(t, Quiet)
	if now := version(); now != rv {
		t.Fatalf("converged %s kept being written (resourceVersion %s → %s)\ntrace:\n%s", what, rv, now, c.w.Trace)
	}
}
