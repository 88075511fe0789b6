package chaos

import (
	"cmp"
	"time"
)

// InformerLag makes one of the operator's informers fall behind: for a while its reads of Kind
// (Deployment, Pod, ConfigMap or Service; Classes draws the first three) show those objects as they were at its first read in
// the window (one it created since is not there, one deleted since still is), while every
// other kind, its own resources' status among them, is current. The informers of different
// kinds keep no order between them: the operator may read its status write "deployed" before
// the Deployment it created.
type InformerLag struct {
	Kind string
	For  time.Duration
}

// Name implements Fault.
func (f InformerLag) Name() string { return "informer-lag-" + f.Kind }

// Apply implements Fault.
func (f InformerLag) Apply(t Target, _ string) error {
	return t.LagInformer(f.Kind, f.For)
}

// Tune sets how long it lasts from a script's for= (Params.For; zero keeps the default).
func (f InformerLag) Tune(p Params) Fault {
	f.For = cmp.Or(p.For, f.For)
	return f
}
