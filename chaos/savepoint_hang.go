package chaos

import (
	"cmp"
	"time"

	"github.com/flinkop/flinkop/fakeflink"
)

// SavepointHang keeps savepoints IN_PROGRESS for a while (a stuck barrier, a slow store).
type SavepointHang struct{ For time.Duration }

// Name implements Fault.
func (SavepointHang) Name() string { return "savepoint-hang" }

// Apply implements Fault.
func (f SavepointHang) Apply(t Target, r string) error {
	t.Cluster(r, func(c *fakeflink.Cluster) { c.HangSavepoints(true) })
	t.Schedule(f.For, func() { t.Cluster(r, func(c *fakeflink.Cluster) { c.HangSavepoints(false) }) })
	return nil
}

// Tune sets how long it lasts from a script's for= (Params.For; zero keeps the default).
func (f SavepointHang) Tune(p Params) Fault {
	f.For = cmp.Or(p.For, f.For)
	return f
}
