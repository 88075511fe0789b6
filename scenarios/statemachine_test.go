package scenarios

import (
	"testing"

	"pgregory.net/rapid"
)

// TestOperatorStateMachine is the property test: random spec changes, suspends and resumes,
// savepoints, deletions, faults and operator restarts never break the invariants, and the
// resource converges once faults and changes stop. -rapid.checks runs, from -rapid.seed;
// committed failfiles under testdata/rapid replay first.
func TestOperatorStateMachine(t *testing.T) {
	rapid.Check(t, Property(nil, nil))
}

// TestSessionJobStateMachine is the property test of FlinkSessionJobs: random spec changes,
// suspends and resumes, savepoints, deletions, faults on the session cluster and operator
// restarts never break the invariants (S1–S3 included), and the session job converges.
func TestSessionJobStateMachine(t *testing.T) {
	rapid.Check(t, SessionProperty(nil, nil))
}

// TestHostileInput is the hostile-input property: specs and jar URIs drawn from the valid,
// boundary, invalid and attack classes of every field a tenant writes, next to objects
// another tenant owns, under API faults, never break an invariant (the tenant boundary, no
// foreign write, API limits included), and every resource converges or reports why.
func TestHostileInput(t *testing.T) {
	rapid.Check(t, HostileProperty(nil))
}
