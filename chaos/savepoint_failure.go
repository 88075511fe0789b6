package chaos

import (
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
