package chaos

import (
	"cmp"
	"time"
)

// SlowStart makes the resource's next JobManager pod take By longer to become ready (a slow
// image pull, a busy node).
type SlowStart struct{ By time.Duration }

// Name implements Fault.
func (SlowStart) Name() string { return "jm-slow-start" }

// Apply implements Fault.
func (f SlowStart) Apply(t Target, r string) error {
	t.DelayJobManagerStart(r, f.By)
	return nil
}

// Tune sets the delay from a script's for= (Params.For; zero keeps the default).
func (f SlowStart) Tune(p Params) Fault {
	f.By = cmp.Or(p.For, f.By)
	return f
}
