package chaos

import (
	"cmp"
	"time"

	"github.com/flinkop/flinkop/fakeflink"
)

// RESTOutage makes the JobManager's REST API answer 503 for a while.
type RESTOutage struct{ For time.Duration }

// Name implements Fault.
func (RESTOutage) Name() string { return "rest-outage" }

// Apply implements Fault.
func (f RESTOutage) Apply(t Target, r string) error {
	until := t.Now().Add(f.For)
	t.Cluster(r, func(c *fakeflink.Cluster) { c.SetRESTFault(fakeflink.RESTUnavailable, until) })
	return nil
}

// Tune sets how long it lasts from a script's for= (Params.For; zero keeps the default).
func (f RESTOutage) Tune(p Params) Fault {
	f.For = cmp.Or(p.For, f.For)
	return f
}
