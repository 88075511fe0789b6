package act

import (
	"errors"
	"fmt"
	"time"

	"github.com/flinkop/flinkop/operator/flink"
)

// ErrFetchCancelled is returned for a jar fetch cancelled because its session job is being
// deleted or its spec changed: nothing failed, and the reconcile that change queued decides
// anew.
var ErrFetchCancelled = errors.New("the jar fetch was cancelled: its session job changed or is being deleted")

// Back-off of a session job whose jar could not be fetched: fetchRetryBase after the first
// failure, doubling with each failure in a row, at most fetchRetryMax. A fetch that succeeds,
// or a new spec (generation), starts again from nothing. Without it, a failing jar would take
// a slot again within seconds (the reconcile's own retry), and its slow server would hold it
// for most of the time.
const (
	fetchRetryBase = 10 * time.Second
	fetchRetryMax  = 5 * time.Minute
)

// FetchBackoffError is a session job's jar fetch that failed (Err, which wraps
// flink.ErrJarFetch): the job fetches again at At, Delay after the failure. Waiting: no fetch
// was tried now, the job waits out the back-off of that failure. Its message is the same
// either way, so status.error does not change while the job waits.
type FetchBackoffError struct {
	// Err is why the fetch failed.
	Err error
	// Delay is the back-off after the failure.
	Delay time.Duration
	// At is when the job may fetch again.
	At time.Time
	// Waiting is true when the job waits out the back-off (nothing was tried now).
	Waiting bool
}

// Error says why the fetch failed and when the job fetches again.
func (e *FetchBackoffError) Error() string {
	return fmt.Sprintf("%v; the next try is at %s (back-off %s)", e.Err, e.At.UTC().Format(time.RFC3339), e.Delay)
}

// Unwrap returns the fetch's error.
func (e *FetchBackoffError) Unwrap() error { return e.Err }

// failures are the failed fetches in a row of one job's spec.
type failures struct {
	generation int64
	count      int
	last       FetchBackoffError
}

// backingOff is the back-off job still waits out, nil when it may fetch; the caller holds mu.
func (s *FetchSlots) backingOff(job FetchJob, now time.Time) *FetchBackoffError {
	f := s.failed[job.Key]
	switch {
	case f == nil:
		return nil
	case f.generation != job.Generation:
		delete(s.failed, job.Key) // a new spec's first fetch is not held back
		return nil
	case now.Before(f.last.At):
		b := f.last
		b.Waiting = true
		return &b
	}
	return nil
}

// outcome records how fetch f went (err; cancelled: Cancel stopped it) and returns the error
// its reconcile reports (see Fetch.Done); the caller holds mu.
func (s *FetchSlots) outcome(f *Fetch, cancelled bool, err error) error {
	key := f.job.Key
	switch {
	case err == nil:
		delete(s.failed, key)
		return nil
	case cancelled:
		return ErrFetchCancelled
	case !errors.Is(err, flink.ErrJarFetch):
		return err // the upload's: the session cluster's, not the jar's
	}
	fl := s.failed[key]
	if fl == nil || fl.generation != f.job.Generation {
		fl = &failures{generation: f.job.Generation}
		s.failed[key] = fl
	}
	fl.count++
	delay := fetchRetryBase
	for i := 1; i < fl.count && delay < fetchRetryMax; i++ {
		delay *= 2
	}
	delay = min(delay, fetchRetryMax)
	fl.last = FetchBackoffError{Err: err, Delay: delay, At: s.clock.Now().Add(delay)}
	b := fl.last
	return &b
}
