package controller

import (
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"
)

// Repeated reconcile errors in the log: controller-runtime logs "Reconciler error" each time a
// reconcile returns an error, and a resource whose reconcile keeps failing (its JobManager
// answering garbage, say) is retried with back-off, many times a minute at first. The
// operator's logger keeps that to at most one such line per resource per
// RepeatedErrorLogInterval; the next line it writes for the resource counts the lines left
// out ("suppressed"). Every error is still counted by the reconcile error metrics, and a
// failing action still records its Warning Event and status.error.

// RepeatedErrorLogInterval is the least time between two "Reconciler error" lines of one
// resource.
const RepeatedErrorLogInterval = time.Minute

// maxRepeatKeys bounds how many resources the logger remembers a last error line for; past
// it, resources whose last line is older than the interval are forgotten first.
const maxRepeatKeys = 16384

// reconcilerError is the message controller-runtime logs a reconcile's error with.
const reconcilerError = "Reconciler error"

// BoundRepeatedErrors returns l writing at most one "Reconciler error" line per resource
// (controller, namespace and name, as controller-runtime's logger carries them) per interval,
// timed by clk.
func BoundRepeatedErrors(l logr.Logger, clk clock.PassiveClock, interval time.Duration) logr.Logger {
	if l.GetSink() == nil {
		return l
	}
	sink := l.GetSink()
	if d, ok := sink.(logr.CallDepthLogSink); ok {
		sink = d.WithCallDepth(1) // the wrapper's own frame
	}
	return logr.New(&repeatSink{sink: sink, seen: &repeats{clock: clk, interval: interval, last: map[resourceKey]*repeat{}}})
}

// resourceKey is the resource a logger's values name.
type resourceKey struct{ controller, namespace, name string }

// with is k with the values of kv (key, value, …) it names.
func (k resourceKey) with(kv []any) resourceKey {
	for i := 0; i+1 < len(kv); i += 2 {
		v, ok := kv[i+1].(string)
		if !ok {
			continue
		}
		switch kv[i] {
		case "controller":
			k.controller = v
		case "namespace":
			k.namespace = v
		case "name":
			k.name = v
		}
	}
	return k
}

// repeat is when a resource's last error line was written, and how many were left out since.
type repeat struct {
	at         time.Time
	suppressed int
}

// repeats remembers the last error line of each resource, for every logger made from one.
type repeats struct {
	clock    clock.PassiveClock
	interval time.Duration
	mu       sync.Mutex
	last     map[resourceKey]*repeat
}

// admit says whether an error line of k is written now, and how many were left out before it.
func (r *repeats) admit(k resourceKey) (write bool, suppressed int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.clock.Now()
	if p, ok := r.last[k]; ok {
		if now.Sub(p.at) < r.interval {
			p.suppressed++
			return false, 0
		}
		suppressed, p.at, p.suppressed = p.suppressed, now, 0
		return true, suppressed
	}
	if len(r.last) >= maxRepeatKeys {
		r.forget(now)
	}
	r.last[k] = &repeat{at: now}
	return true, 0
}

// forget drops the resources whose last line is older than the interval; if none is, any one.
func (r *repeats) forget(now time.Time) {
	for k, p := range r.last {
		if now.Sub(p.at) >= r.interval {
			delete(r.last, k)
		}
	}
	for k := range r.last {
		if len(r.last) < maxRepeatKeys {
			return
		}
		delete(r.last, k)
	}
}

// repeatSink passes everything to sink but the error lines of a resource within the interval.
type repeatSink struct {
	sink logr.LogSink
	key  resourceKey
	seen *repeats
}

// Init does nothing: the sink was initialised by the logger it came from (initialising it
// again would count its caller frames twice); BoundRepeatedErrors adds this sink's frame.
func (s *repeatSink) Init(logr.RuntimeInfo) {}

// Enabled is the sink's.
func (s *repeatSink) Enabled(level int) bool { return s.sink.Enabled(level) }

// Info is the sink's.
func (s *repeatSink) Info(level int, msg string, kv ...any) { s.sink.Info(level, msg, kv...) }

// Error writes the line unless it is a resource's reconcile error within the interval.
func (s *repeatSink) Error(err error, msg string, kv ...any) {
	k := s.key.with(kv)
	if msg != reconcilerError || k.name == "" {
		s.sink.Error(err, msg, kv...)
		return
	}
	write, suppressed := s.seen.admit(k)
	switch {
	case !write:
		return
	case suppressed > 0:
		kv = append(kv, "suppressed", suppressed)
	}
	s.sink.Error(err, msg, kv...)
}

// WithValues remembers the resource the values name.
func (s *repeatSink) WithValues(kv ...any) logr.LogSink {
	c := *s
	c.sink, c.key = s.sink.WithValues(kv...), s.key.with(kv)
	return &c
}

// WithName is the sink's.
func (s *repeatSink) WithName(name string) logr.LogSink {
	c := *s
	c.sink = s.sink.WithName(name)
	return &c
}

// WithCallDepth passes the depth on, when the sink takes it.
func (s *repeatSink) WithCallDepth(depth int) logr.LogSink {
	d, ok := s.sink.(logr.CallDepthLogSink)
	if !ok {
		return s
	}
	c := *s
	c.sink = d.WithCallDepth(depth)
	return &c
}
