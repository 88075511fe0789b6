package chaos

import (
	"cmp"
	"time"

	"github.com/flinkop/flinkop/fakeflink"
)

// NetworkPartition cuts the operator off from the JobManager for a while: connections are
// refused, while the job itself keeps running.
type NetworkPartition struct{ For time.Duration }

// Name implements Fault.
func (NetworkPartition) Name() string { return "network-partition" }

// Apply implements Fault.
func (f NetworkPartition) Apply(t Target, r string) error {
	until := t.Now().Add(f.For)
	t.Cluster(r, func(c *fakeflink.Cluster) { c.SetRESTFault(fakeflink.RESTRefuse, until) })
	return nil
}

// Tune sets how long it lasts from a script's for= (Params.For; zero keeps the default).
func (f NetworkPartition) Tune(p Params) Fault {
	f.For = cmp.Or(p.For, f.For)
	return f
}
