package chaos

import (
	"cmp"
	"time"

	"github.com/flinkop/flinkop/fakeflink"
)

// CheckpointFailure makes checkpoints fail for a while.
type CheckpointFailure struct{ For time.Duration }

// Name implements Fault.
func (CheckpointFailure) Name() string { return "checkpoint-failure" }

// Apply implements Fault.
func (f CheckpointFailure) Apply(t Target, r string) error {
	t.Cluster(r, func(c *fakeflink.Cluster) { c.FailCheckpoints(true) })
	t.Schedule(f.For, func() { t.Cluster(r, func(c *fakeflink.Cluster) { c.FailCheckpoints(false) }) })
	return nil
}

// Tune sets how long it lasts from a script's for= (Params.For; zero keeps the default).
func (f CheckpointFailure) Tune(p Params) Fault {
	f.For = cmp.Or(p.For, f.For)
	return f
}
