package chaos

import (
	"cmp"

	"github.com/flinkop/flinkop/fakeflink"
)

// SavepointFailure makes the next savepoints fail.
type SavepointFailure struct{ Count int }

// Name implements Fault.
func (SavepointFailure) Name() string { return "savepoint-failure" }

// Apply implements Fault.
func (f SavepointFailure) Apply(t Target, r string) error {
	t.Cluster(r, func(c *fakeflink.Cluster) { c.FailNextSavepoints(max(f.Count, 1)) })
	return nil
}

// Tune sets how many savepoints fail from a script's count= (Params.Count; zero keeps the default).
func (f SavepointFailure) Tune(p Params) Fault {
	f.Count = cmp.Or(p.Count, f.Count)
	return f
}
