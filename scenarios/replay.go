package scenarios

import (
	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"
)

// Replay runs one sweep seed again as the sweep ran it (the same property for the seed, the
// same number of steps, the fake backend): a sweep's failure reproduces exactly, and
// Stats.World holds the trace of the failing run for its timeline. The Violation is nil when
// the run passes.
func Replay(seed uint64, steps int) (Stats, *Violation, error) {
	ctrl.SetLogger(logr.Discard())
	if steps <= 0 {
		steps = DefaultSteps
	}
	if err := setRapidFlags(steps); err != nil {
		return Stats{}, nil, err
	}
	st, v := runSeed(seed, steps, nil, kindOf(seed, false))
	return st, v, nil
}
