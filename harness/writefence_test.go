package harness

import (
	"strings"
	"testing"
	"time"
)

// Invariant 9: with the operator's reads stale while it deploys (each read in the window sees
// the version of its first read), the operator that fences off its own writes waits for its
// cache and writes no resource on a version it replaced itself; one built without the fence
// does, the API server refuses it with a conflict, and the invariant fires.
func TestOwnStaleWriteInvariant(t *testing.T) {
	for name, fenced := range map[string]bool{"fenced": true, "no fence": false} {
		t.Run(name, func(t *testing.T) {
			w, err := NewWorld(1)
			if err != nil {
				t.Fatal(err)
			}
			if !fenced {
				w.noWriteFence = true
				w.RestartOperator()
			}
			c := NewChecker(w)
			w.StaleReads(time.Minute)
			if err := w.Apply(savepointJob()); err != nil {
				t.Fatal(err)
			}
			violations := stepAndCheck(t, w, c, 3*time.Minute, "job")
			fired := strings.Contains(strings.Join(violations, "\n"), "invariant 9")
			if fired == fenced {
				t.Errorf("invariant 9 fired: %v, want %v; violations:\n%s\ntrace:\n%s", fired, !fenced, strings.Join(violations, "\n"), w.Trace)
			}
			if fired && tracedViolations(w, "job") == 0 {
				t.Errorf("the violations are not in the trace:\n%s", w.Trace)
			}
			if fenced {
				if len(violations) > 0 {
					t.Errorf("violations: %v", violations)
				}
				if ok, why := c.Converged("job"); !ok {
					t.Errorf("not converged after the stale window: %s\n%s", why, w.Trace)
				}
			}
		})
	}
}

// stepAndCheck steps w for d, checking the named resources after every step, and returns
// every violation seen.
func stepAndCheck(t *testing.T, w *World, c *Checker, d time.Duration, resources ...string) []string {
	t.Helper()
	var violations []string
	for end := w.Now().Add(d); w.Now().Before(end); {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
		violations = append(violations, c.Check(resources...)...)
	}
	return violations
}

// tracedViolations counts the violations of resource written into w's trace.
func tracedViolations(w *World, resource string) int {
	n := 0
	for _, e := range w.Trace.Entries {
		if e.Kind == "violation" && e.Resource == resource {
			n++
		}
	}
	return n
}
