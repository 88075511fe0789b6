package chaos

import (
	"cmp"
	"time"
)

// StaleReads serves the operator's reads from a lagging snapshot for a while, as an informer
// cache that has not caught up: it does not see its own writes, nor anyone else's.
type StaleReads struct{ For time.Duration }

// Name implements Fault.
func (StaleReads) Name() string { return "stale-reads" }

// Apply implements Fault.
func (f StaleReads) Apply(t Target, _ string) error {
	t.StaleReads(f.For)
	return nil
}

// Tune sets how long it lasts from a script's for= (Params.For; zero keeps the default).
func (f StaleReads) Tune(p Params) Fault {
	f.For = cmp.Or(p.For, f.For)
	return f
}
