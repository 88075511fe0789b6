package scenarios

import (
	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/flinkop/flinkop/harness"
)

// Replay runs one sweep seed again as the sweep ran it (the same property for the seed, the
// same number of steps, the fake backend; hostile as the sweep's SweepOptions.Hostile): a
// sweep's failure reproduces exactly, and Stats.World holds the trace of the failing run for
// its timeline. The Violation is nil when the run passes.
func Replay(seed uint64, steps int, hostile bool) (Stats, *Violation, error) {
	return replayOn(seed, steps, hostile, nil)
}

// replayOn is Replay on backends from newBackend (nil: the fake backend), as a sweep with the
// same NewBackend ran the seed.
func replayOn(seed uint64, steps int, hostile bool, newBackend func() (harness.Backend, error)) (Stats, *Violation, error) {
	ctrl.SetLogger(logr.Discard())
	if steps <= 0 {
		steps = DefaultSteps
	}
	restore, err := setRapidFlags(steps)
	if err != nil {
		return Stats{}, nil, err
	}
	defer restore()
	st, v := runSeed(seed, steps, newBackend, kindOf(seed, hostile))
	return st, v, nil
}
