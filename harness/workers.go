package harness

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/operator/act"
	"github.com/flinkop/flinkop/operator/controller"
)

// LatencyBound bounds the latency invariant (L): in a world with reconcile workers
// (SetWorkers), the reconcile that sees a spec change of a deployment whose JobManager answers
// ends within LatencyBound of the change (the operator's first action on it is done by then),
// however many of its neighbours' JobManagers hang, as long as fewer hang than there are
// workers.
const LatencyBound = 500 * time.Millisecond

// Duty bounds the duty invariant (D): once a resource's JobManager has not answered for two
// DutyWindows, its reconciles keep workers busy for at most DutyBound in any DutyWindow, plus
// PerChange for each change of its spec in that window, so the workers a fleet spends on hung JobManagers shrink the longer they
// hang (the operator backs off to one probe per 5 minutes; a poll that does not back off, a
// hot loop or a client without a timeout breaks it).
const (
	DutyWindow = 5 * time.Minute
	DutyBound  = 3 * clientTimeout
	PerChange  = 2 * clientTimeout
)

// Wait is how long one spec change waited for the reconcile that saw it.
type Wait struct {
	Resource         string
	Changed, Started time.Time
	// Healthy says the resource's own JobManager answered when the change was made and when
	// the reconcile started.
	Healthy bool
	// Hung is how many JobManagers did not answer when the reconcile started.
	Hung int
	// Cost is how long that reconcile kept its worker: its first action is done by then.
	Cost time.Duration
}

// workers models the operator's reconcile workers in virtual time. A reconcile costs the
// client timeout for every Flink REST call that got no answer (the in-process transport
// answers the rest at once), and keeps one worker busy for that long; a resource is never
// reconciled twice at once (controller-runtime's guarantee); a due reconcile waits for a free
// worker. The reconcile's effects land when it starts, its requeue counts from its end.
type workers struct {
	n       int
	free    []time.Time          // when each worker is next free
	running map[string]time.Time // key → when its last reconcile ended
	changed map[string]change    // key → its oldest spec change no reconcile has seen
	waits   []Wait
	cost    time.Duration // of the reconcile running now
	seen    bool          // the reconcile running now saw a spec change (the last wait)
	// charge is what one Flink REST call costs the reconcile that makes it (nil: the client
	// timeout when the call got no answer, nothing otherwise).
	charge func(timedOut bool) time.Duration
	// hungSince is when each resource's reconcile first found its JobManager not answering.
	hungSince map[string]time.Time
	spent     map[string][]spend // key → its reconciles in the last DutyWindow
	failures  map[string]int     // key → reconciles in a row that returned an error
	broken    []string           // duty violations not yet reported
}

// spend is the cost of one reconcile.
type spend struct {
	at     time.Time
	cost   time.Duration
	change bool // it saw a spec change
}

// SetWorkers makes the world reconcile with n workers in virtual time (0: one reconcile at a
// time, each taking no time: the default).
func (w *World) SetWorkers(n int) {
	w.workers = workers{
		n: n, free: make([]time.Time, n), running: map[string]time.Time{}, changed: map[string]change{},
		hungSince: map[string]time.Time{}, spent: map[string][]spend{}, failures: map[string]int{},
	}
}

// Waits returns the spec changes seen by a reconcile so far, in the order they were seen.
func (w *World) Waits() []Wait { return slices.Clone(w.workers.waits) }

// change is a spec change waiting for its reconcile.
type change struct {
	at      time.Time
	healthy bool // the resource's JobManager answered then
}

// clientTimeout is the operator's Flink REST client timeout in every world.
const clientTimeout = time.Second

// noteChange records a spec change of key for the latency invariant.
func (w *World) noteChange(key string) {
	if w.workers.n == 0 {
		return
	}
	if _, ok := w.workers.changed[key]; !ok {
		w.workers.changed[key] = change{at: w.Clock.Now(), healthy: w.Answers(key)}
	}
}

// firstFree returns when the first worker is free (zero without workers).
func (w *World) firstFree() time.Time {
	if w.workers.n == 0 {
		return time.Time{}
	}
	return slices.MinFunc(w.workers.free, time.Time.Compare)
}

// startAt returns when a reconcile of key due at due can start: once a worker is free (free,
// from firstFree) and key's previous reconcile has ended.
func (w *World) startAt(key string, due, free time.Time) time.Time {
	if w.workers.n == 0 {
		return due
	}
	if end := w.workers.running[key]; end.After(due) {
		due = end
	}
	if free.After(due) {
		due = free
	}
	return due
}

// started records the start of key's reconcile: the latency of a change it sees.
func (w *World) started(key string) {
	if w.workers.n == 0 {
		return
	}
	now := w.Clock.Now()
	w.workers.cost, w.workers.seen = 0, false
	if w.Answers(key) {
		delete(w.workers.hungSince, key)
	} else if _, ok := w.workers.hungSince[key]; !ok {
		w.workers.hungSince[key] = now
	}
	c, ok := w.workers.changed[key]
	if !ok {
		return
	}
	delete(w.workers.changed, key)
	w.workers.seen = true
	w.workers.waits = append(w.workers.waits, Wait{
		Resource: key, Changed: c.at, Started: w.Clock.Now(), Healthy: c.healthy && w.Answers(key), Hung: w.hung(),
	})
}

// Answers says whether the JobManager of the FlinkDeployment named key answers REST calls
// now (a JobManager that is not there yet answers by definition: nothing hangs).
func (w *World) Answers(key string) bool {
	cl := w.Sim.Cluster(w.Namespace, act.JobManagerName(key))
	return cl == nil || cl.RESTState() != fakeflink.RESTTimeout
}

// hung counts the JobManagers that do not answer REST calls now.
func (w *World) hung() int {
	n := 0
	w.Sim.EachCluster(func(_ string, cl *fakeflink.Cluster) {
		if cl.RESTState() == fakeflink.RESTTimeout {
			n++
		}
	})
	return n
}

// finished takes a worker for the reconcile of key that started now, for its cost, and
// returns when it ends.
func (w *World) finished(key string) time.Time {
	now := w.Clock.Now()
	if w.workers.n == 0 {
		return now
	}
	cost := w.workers.cost
	end := now.Add(cost)
	if w.workers.seen {
		w.workers.waits[len(w.workers.waits)-1].Cost = cost
	}
	w.dutyKept(key, now, spend{at: now, cost: cost, change: w.workers.seen})
	i := slices.IndexFunc(w.workers.free, func(t time.Time) bool { return !t.After(now) })
	w.workers.free[i] = end
	w.workers.running[key] = end
	return end
}

// costTransport is the operator's Flink transport in the world: the pod simulator, with each
// unanswered call charged to the running reconcile.
type costTransport struct{ w *World }

// RoundTrip implements http.RoundTripper.
func (t costTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.w.Sim.RoundTrip(req)
	if err == nil {
		t.w.answers.watch(req, resp)
	}
	var ne net.Error
	timedOut := errors.As(err, &ne) && ne.Timeout()
	switch {
	case t.w.workers.charge != nil:
		t.w.workers.cost += t.w.workers.charge(timedOut)
	case timedOut:
		t.w.workers.cost += clientTimeout
	}
	return resp, err
}

// dutyKept records the reconcile of key that started at now and checks the duty invariant
// (D) for it.
func (w *World) dutyKept(key string, now time.Time, r spend) {
	since, hung := w.workers.hungSince[key]
	if !hung {
		delete(w.workers.spent, key)
		return
	}
	kept := w.workers.spent[key][:0]
	var total time.Duration
	allowed := DutyBound
	for _, s := range append(w.workers.spent[key], r) {
		if now.Sub(s.at) >= DutyWindow {
			continue
		}
		kept = append(kept, s)
		total += s.cost
		if s.change {
			allowed += PerChange
		}
	}
	w.workers.spent[key] = kept
	if now.Sub(since) >= 2*DutyWindow && total > allowed {
		w.workers.broken = append(w.workers.broken, fmt.Sprintf(
			"%s: its JobManager has not answered for %s and its reconciles kept workers busy for %s of the last %s (over %s; invariant D)",
			key, now.Sub(since), total, DutyWindow, allowed))
	}
}

// latencyKept is the latency invariant (L): every spec change of a deployment whose JobManager
// answers is seen by a reconcile within LatencyBound, while fewer JobManagers hang than there
// are workers.
func (c *Checker) latencyKept() []string {
	waits := c.w.workers.waits
	out := c.w.workers.broken
	c.w.workers.broken = nil
	for _, wt := range waits[c.waitsSeen:] {
		if d := wt.Started.Sub(wt.Changed) + wt.Cost; wt.Healthy && wt.Hung < c.w.workers.n && d > LatencyBound {
			out = append(out, fmt.Sprintf("%s: a spec change waited %s for the end of the reconcile that saw it (over %s) while %d of its neighbours' JobManagers hung and %d workers reconciled (invariant L)",
				wt.Resource, d, LatencyBound, wt.Hung, c.w.workers.n))
		}
	}
	c.waitsSeen = len(waits)
	return out
}

// retryAfter is when a reconcile of key that ended at end is retried after it failed (err) or
// succeeded: one second in the default world; with workers, the controllers' per-item back-off
// (controller.RetryBaseDelay doubling per failure in a row, at most controller.RetryMaxDelay).
func (w *World) retryAfter(key string, end time.Time, failed bool) time.Time {
	if w.workers.n == 0 {
		return end.Add(time.Second)
	}
	if !failed {
		delete(w.workers.failures, key)
		return end
	}
	n := w.workers.failures[key]
	w.workers.failures[key] = n + 1
	d := controller.RetryBaseDelay
	for range n {
		if d *= 2; d >= controller.RetryMaxDelay {
			return end.Add(controller.RetryMaxDelay)
		}
	}
	return end.Add(d)
}
