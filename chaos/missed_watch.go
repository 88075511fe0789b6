package chaos

import "cmp"

// MissedWatchEvents makes the operator miss the next Count watch events of its resources: it
// sees the change only at its next periodic reconcile (several changes coalesce into one).
type MissedWatchEvents struct{ Count int }

// Name implements Fault.
func (MissedWatchEvents) Name() string { return "missed-watch-events" }

// Apply implements Fault.
func (f MissedWatchEvents) Apply(t Target, _ string) error {
	t.DropWatchEvents(max(f.Count, 1))
	return nil
}

// Tune sets how many events are missed from a script's count= (Params.Count; zero keeps the default).
func (f MissedWatchEvents) Tune(p Params) Fault {
	f.Count = cmp.Or(p.Count, f.Count)
	return f
}
