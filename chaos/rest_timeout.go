package chaos

import (
	"cmp"
	"time"

	"github.com/flinkop/flinkop/fakeflink"
)

// RESTTimeout makes the JobManager's REST API stop answering for a while: every request ends
// in the client's timeout.
type RESTTimeout struct{ For time.Duration }

// Name implements Fault.
func (RESTTimeout) Name() string { return "rest-timeout" }

// Apply implements Fault.
func (f RESTTimeout) Apply(t Target, r string) error {
	until := t.Now().Add(f.For)
	t.Cluster(r, func(c *fakeflink.Cluster) { c.SetRESTFault(fakeflink.RESTTimeout, until) })
	return nil
}

// Tune sets how long it lasts from a script's for= (Params.For; zero keeps the default).
func (f RESTTimeout) Tune(p Params) Fault {
	f.For = cmp.Or(p.For, f.For)
	return f
}
