package scenarios

import (
	"flag"
	"strconv"
	"testing"

	"pgregory.net/rapid"

	"github.com/flinkop/flinkop/harness"
)

// TestOperatorStateMachine is the property test: random spec changes, suspends and resumes,
// savepoints, deletions, faults and operator restarts never break the invariants, and the
// resource converges once faults and changes stop. -rapid.checks runs, from -rapid.seed;
// committed failfiles under testdata/rapid replay first.
func TestOperatorStateMachine(t *testing.T) {
	t.Parallel()
	rapid.Check(t, Property(nil, nil))
}

// TestSessionJobStateMachine is the property test of FlinkSessionJobs: random spec changes,
// suspends and resumes, savepoints, deletions, faults on the session cluster and operator
// restarts never break the invariants (S1–S3 included), and the session job converges.
func TestSessionJobStateMachine(t *testing.T) {
	t.Parallel()
	rapid.Check(t, SessionProperty(nil, nil))
}

// TestBlueGreenStateMachine is the property test of FlinkBlueGreenDeployments: random
// template changes, suspends and resumes, children that start too late, failed savepoints,
// faults, operator restarts and deletions never break the invariants (B1–B5 included), and
// the resource converges to one ready child.
func TestBlueGreenStateMachine(t *testing.T) {
	t.Parallel()
	rapid.Check(t, BlueGreenProperty(nil, nil))
}

// TestHostileInput is the hostile-input property: specs and jar URIs drawn from the valid,
// boundary, invalid and attack classes of every field a tenant writes, next to objects
// another tenant owns, under API faults, never break an invariant (the tenant boundary, no
// foreign write, API limits included), and every resource converges or reports why.
func TestHostileInput(t *testing.T) {
	rapid.Check(t, HostileProperty(nil, nil))
}

// TestFleetStateMachine is the fleet property: 4 to 10 deployments on 2 to 4 reconcile
// workers in virtual time, random spec changes and upgrade waves while some JobManagers stop
// answering, never break an invariant, the latency (L) and duty (D) invariants included, and
// the fleet converges once the JobManagers answer again.
// It makes one run per FleetShare of -rapid.checks (at least one): a fleet run costs about as
// much as that many runs of one deployment. It sets -rapid.checks for itself, so it is not
// parallel: the parallel properties start once it (every sequential test) is done.
func TestFleetStateMachine(t *testing.T) {
	f := flag.Lookup("rapid.checks")
	checks, err := strconv.Atoi(f.Value.String())
	if err != nil {
		t.Fatalf("-rapid.checks: %v", err)
	}
	orig := f.Value.String()
	if err := f.Value.Set(strconv.Itoa(max(1, checks/FleetShare))); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Value.Set(orig) })
	rapid.Check(t, FleetProperty(nil, nil))
}

// TestBlueGreenSwitch is the blue→green switch, on the fake backend (TestOnEnvtest runs it on
// a real API server).
func TestBlueGreenSwitch(t *testing.T) {
	b, err := harness.FakeBackend()
	if err != nil {
		t.Fatal(err)
	}
	if err := BlueGreenSwitch(b, 1); err != nil {
		t.Fatal(err)
	}
}
