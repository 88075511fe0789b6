package chaos

import (
	"cmp"
	"fmt"
)

// APIErrors makes the operator's next Count API writes fail with Code (409 Conflict, or 500
// for an API server in trouble) without taking effect.
type APIErrors struct{ Code, Count int }

// Name implements Fault.
func (f APIErrors) Name() string {
	if f.Code == 409 {
		return "api-conflict"
	}
	return fmt.Sprintf("api-%d", f.Code)
}

// Apply implements Fault.
func (f APIErrors) Apply(t Target, _ string) error {
	t.FailAPIWrites(f.Code, max(f.Count, 1))
	return nil
}

// Tune sets how many writes fail from a script's count= (Params.Count; zero keeps the default).
func (f APIErrors) Tune(p Params) Fault {
	f.Count = cmp.Or(p.Count, f.Count)
	return f
}
