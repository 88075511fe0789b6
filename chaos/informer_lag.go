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
//
// With Trail set, the informer trails instead: each write of Kind the operator makes in the
// window reaches its reads a random while up to Trail later, in the order made, so two
// writes of one reconcile (a cluster's two Deployment deletions) may reach them a reconcile
// apart; the operator then sees half of what it did.
type InformerLag struct {
	Kind  string
	For   time.Duration
	Trail time.Duration
}

// Name implements Fault.
func (f InformerLag) Name() string {
	if f.Trail > 0 {
		return "informer-trail-" + f.Kind
	}
	return "informer-lag-" + f.Kind
}

// Apply implements Fault.
func (f InformerLag) Apply(t Target, _ string) error {
	return t.LagInformer(f.Kind, f.For, f.Trail)
}

// Tune sets how long it lasts from a script's for= (Params.For) and how far the informer
// trails from its trail= (Params.Trail; set, the informer trails); zero keeps the default.
func (f InformerLag) Tune(p Params) Fault {
	f.For, f.Trail = cmp.Or(p.For, f.For), cmp.Or(p.Trail, f.Trail)
	return f
}
