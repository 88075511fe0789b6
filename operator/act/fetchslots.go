package act

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
)

// Default bounds of the jar fetches under way at once (--jar-fetch-slots and
// --jar-fetch-slots-per-namespace).
const (
	// DefaultJarFetchSlots is how many jar fetches may be under way at once in all.
	DefaultJarFetchSlots = 2
	// DefaultJarFetchSlotsPerNamespace is how many of them one namespace may hold.
	DefaultJarFetchSlotsPerNamespace = 1
)

// Waits of a session job refused a fetch slot: from fetchWaitBase, doubling with each refusal
// in a row, at most fetchWaitMax; once freed slots wake the waiters (OnFree), from
// wakeRetryBase to wakeRetryMax, which then only covers a wake-up that was lost. A slot freed
// for the job first in line is kept for it (promised) for promiseTimeout: its wake-up may be
// lost, or its reconcile may end before it asks, and the slot then goes to the next in line.
const (
	fetchWaitBase  = time.Second
	fetchWaitMax   = 30 * time.Second
	promiseTimeout = 30 * time.Second
)

// FetchJob is the session job a jar fetch is for: its key and the generation of the spec it
// fetches for.
type FetchJob struct {
	Key        types.NamespacedName
	Generation int64
}

// FetchSlots bound the jar fetches of session jobs under way at once: total in all and
// perNamespace per namespace, so that slow jar servers never hold every reconcile worker and
// one tenant's jobs never hold every slot. A job refused a slot waits in line; the line is
// fair between namespaces (slotLine): a freed slot goes to the namespace served least
// recently, however many jobs each namespace has waiting, and is kept for the job it wakes
// (OnFree), which no retry of a job served before can take. A fetch is cancelled, and its
// slot freed at once, when its job is deleted or its spec changes (Cancel, CancelOutdated);
// a job whose fetch failed waits out a back-off before it takes a slot again (fetchbackoff.go).
type FetchSlots struct {
	clock        clock.PassiveClock
	total, perNS int
	waitRetry    workqueue.TypedRateLimiter[types.NamespacedName]

	mu       sync.Mutex
	used     int                                // slots fetching or promised
	byNS     map[string]int                     // the same, by namespace
	fetches  map[types.NamespacedName]*Fetch    // fetches under way, by job
	promised map[types.NamespacedName]promise   // slots kept for woken jobs
	asking   map[types.NamespacedName]bool      // jobs refused in a reconcile not over yet
	failed   map[types.NamespacedName]*failures // jobs whose last fetch failed
	line     slotLine
	wake     func(owner types.NamespacedName)
}

// promise is a slot kept for a woken job until deadline. early: the job was woken while the
// reconcile it was refused in still ran; that reconcile's end (Returned) does not pass the
// slot on, the one the wake-up queued takes it.
type promise struct {
	deadline time.Time
	early    bool
}

// NewFetchSlots returns total slots, at most perNamespace of them for one namespace (the
// defaults for values <= 0; perNamespace at most total), timed by clk.
func NewFetchSlots(total, perNamespace int, clk clock.PassiveClock) *FetchSlots {
	if total <= 0 {
		total = DefaultJarFetchSlots
	}
	if perNamespace <= 0 {
		perNamespace = DefaultJarFetchSlotsPerNamespace
	}
	return &FetchSlots{
		clock: clk, total: total, perNS: min(perNamespace, total),
		waitRetry: workqueue.NewTypedItemExponentialFailureRateLimiter[types.NamespacedName](fetchWaitBase, fetchWaitMax),
		byNS:      map[string]int{}, fetches: map[types.NamespacedName]*Fetch{}, promised: map[types.NamespacedName]promise{},
		asking: map[types.NamespacedName]bool{}, failed: map[types.NamespacedName]*failures{},
		line: newSlotLine(func(owner types.NamespacedName) string { return owner.Namespace }),
	}
}

// OnFree makes each freed slot call wake with the session job it is kept for, which should
// then be reconciled at once; the reconcile must call Returned when it is over. wake must not
// block. Call it before the slots are used.
func (s *FetchSlots) OnFree(wake func(owner types.NamespacedName)) {
	if s == nil {
		return
	}
	s.wake = wake
	s.waitRetry = workqueue.NewTypedItemExponentialFailureRateLimiter[types.NamespacedName](wakeRetryBase, wakeRetryMax)
}

// Fetch is a jar fetch holding a slot. Its Context is cancelled when its job is deleted or
// its spec changes; Done ends it.
type Fetch struct {
	slots  *FetchSlots
	job    FetchJob
	ctx    context.Context
	cancel context.CancelCauseFunc
	freed  bool // its slot was given back; guarded by slots.mu
}

// Context is the fetch's context.
func (f *Fetch) Context() context.Context { return f.ctx }

// take takes a slot for job's fetch (nil slots: no bound). A *FetchBackoffError while the job
// waits out the back-off of a failed fetch; a *RetryLaterError when no slot is free for it:
// the job then waits in line (at the front of its namespace's jobs when it was woken for a
// slot that is gone).
func (s *FetchSlots) take(ctx context.Context, job FetchJob) (*Fetch, error) {
	if s == nil {
		return &Fetch{ctx: ctx, cancel: func(error) {}}, nil
	}
	now := s.clock.Now()
	s.mu.Lock()
	woken := s.expire(now)
	if b := s.backingOff(job, now); b != nil {
		s.mu.Unlock()
		s.wakeUp(woken)
		return nil, b
	}
	wasWoken := s.line.comeBack(job.Key)
	if _, ok := s.promised[job.Key]; ok {
		delete(s.promised, job.Key) // the slot is counted already
	} else if s.used < s.total && s.byNS[job.Key.Namespace] < s.perNS {
		s.hold(job.Key.Namespace)
	} else {
		if s.wake != nil {
			s.line.join(job.Key, wasWoken)
			s.asking[job.Key] = true
		}
		s.mu.Unlock()
		s.wakeUp(woken)
		return nil, &RetryLaterError{What: "every jar fetch slot is taken", After: spread(job.Key, s.waitRetry.When(job.Key))}
	}
	s.line.serve(job.Key)
	fctx, cancel := context.WithCancelCause(ctx)
	f := &Fetch{slots: s, job: job, ctx: fctx, cancel: cancel}
	s.fetches[job.Key] = f
	s.mu.Unlock()
	s.waitRetry.Forget(job.Key)
	s.wakeUp(woken)
	return f, nil
}

// Done ends the fetch: it gives its slot back (unless Cancel did) and records how the fetch
// went, err being the fetch's (and the upload's) error. It returns the error to report: nil
// on success (the job's back-off is reset); a *FetchBackoffError for a jar that could not be
// fetched (flink.ErrJarFetch), with the job's next try; ErrFetchCancelled when Cancel stopped
// the fetch; else err.
func (f *Fetch) Done(err error) error {
	s := f.slots
	defer f.cancel(nil)
	if s == nil {
		return err
	}
	s.mu.Lock()
	cancelled := f.freed
	var woken []types.NamespacedName
	if !cancelled {
		woken = s.release(f)
	}
	if s.fetches[f.job.Key] == f {
		delete(s.fetches, f.job.Key)
	}
	err = s.outcome(f, cancelled, err)
	s.mu.Unlock()
	s.wakeUp(woken)
	return err
}

// Returned tells the slots that a reconcile of job key is over. A slot kept for the job that
// the reconcile did not take goes to the next in line, unless the job was woken while this
// reconcile ran: the reconcile its wake-up queued is still to come.
func (s *FetchSlots) Returned(key types.NamespacedName) {
	if s == nil {
		return
	}
	s.mu.Lock()
	asking := s.asking[key]
	delete(s.asking, key)
	var woken []types.NamespacedName
	if p, ok := s.promised[key]; ok {
		if asking && p.early {
			p.early = false
			s.promised[key] = p
		} else {
			s.line.comeBack(key)
			woken = s.unpromise(key)
		}
	}
	s.mu.Unlock()
	s.wakeUp(woken)
}

// Busy counts the slots taken (fetching, or kept for a woken job).
func (s *FetchSlots) Busy() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.used
}

// hold counts a slot of namespace ns as taken; the caller holds mu.
func (s *FetchSlots) hold(ns string) {
	s.used++
	s.byNS[ns]++
}

// free gives a slot of namespace ns back and keeps the free slots for the next in line,
// returned to be woken; the caller holds mu.
func (s *FetchSlots) free(ns string) []types.NamespacedName {
	s.used--
	if s.byNS[ns]--; s.byNS[ns] <= 0 {
		delete(s.byNS, ns)
	}
	var woken []types.NamespacedName
	for s.wake != nil && s.used < s.total {
		next, ok := s.line.wakeNext(func(ns string) bool { return s.byNS[ns] < s.perNS })
		if !ok {
			break
		}
		s.hold(next.Namespace)
		s.promised[next] = promise{deadline: s.clock.Now().Add(promiseTimeout), early: s.asking[next]}
		woken = append(woken, next)
	}
	return woken
}

// release gives f's slot back; the caller holds mu.
func (s *FetchSlots) release(f *Fetch) []types.NamespacedName {
	f.freed = true
	return s.free(f.job.Key.Namespace)
}

// unpromise gives back the slot kept for key, which did not take it; the caller holds mu.
func (s *FetchSlots) unpromise(key types.NamespacedName) []types.NamespacedName {
	delete(s.promised, key)
	return s.free(key.Namespace)
}

// expire gives back the slots kept past their deadline; the caller holds mu. Their jobs stay
// marked woken: one that comes back late and is refused waits at the front of its
// namespace's line.
func (s *FetchSlots) expire(now time.Time) []types.NamespacedName {
	var late, woken []types.NamespacedName
	for key, p := range s.promised {
		if now.After(p.deadline) {
			late = append(late, key)
		}
	}
	slices.SortFunc(late, func(a, b types.NamespacedName) int { return strings.Compare(a.String(), b.String()) })
	for _, key := range late {
		if _, ok := s.promised[key]; ok {
			woken = append(woken, s.unpromise(key)...)
		}
	}
	return woken
}

// wakeUp wakes the jobs slots are kept for; the caller does not hold mu.
func (s *FetchSlots) wakeUp(owners []types.NamespacedName) {
	for _, owner := range owners {
		s.wake(owner)
	}
}
