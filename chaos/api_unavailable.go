package chaos

import (
	"cmp"
	"time"
)

// APIUnavailable takes the API server away from the operator for a while: every read, list
// and write fails (503), as during an etcd or kube-apiserver freeze; then the API server
// restarts, and the operator's watches re-list, which reconciles every resource.
type APIUnavailable struct{ For time.Duration }

// Name implements Fault.
func (APIUnavailable) Name() string { return "api-unavailable" }

// Apply implements Fault.
func (f APIUnavailable) Apply(t Target, _ string) error {
	t.APIUnavailable(f.For)
	return nil
}

// Tune sets how long the API server is away from a script's for= (Params.For; zero keeps the
// default).
func (f APIUnavailable) Tune(p Params) Fault {
	f.For = cmp.Or(p.For, f.For)
	return f
}
