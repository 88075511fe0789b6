package controller

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/types"
)

// The per-resource reconcile rate: LoopBurst reconciles of one resource back to back, then
// LoopRate per second. A resource whose reconciles loop (a bug, or another writer fighting the
// operator over its status) then waits its turn instead of spending the API budget and the
// workers the fleet shares. The operator's own steps stay far below it: a step that only wrote
// status waits a second before the next.
const (
	LoopBurst = 20
	LoopRate  = 2
)

// loopGuard holds a token bucket per resource. It is safe for concurrent reconciles.
type loopGuard struct {
	mu      sync.Mutex
	buckets map[types.NamespacedName]*rate.Limiter
}

// wait returns how long key's reconcile at now must be put off (0: it may run now, and the
// reconcile is counted).
func (g *loopGuard) wait(key types.NamespacedName, now time.Time) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	b, ok := g.buckets[key]
	if !ok {
		if g.buckets == nil {
			g.buckets = map[types.NamespacedName]*rate.Limiter{}
		}
		b = rate.NewLimiter(LoopRate, LoopBurst)
		g.buckets[key] = b
	}
	r := b.ReserveN(now, 1)
	d := r.DelayFrom(now)
	if d > 0 {
		r.CancelAt(now) // the put-off reconcile takes no token
	}
	return d
}

// forget drops key's bucket (the resource is gone).
func (g *loopGuard) forget(key types.NamespacedName) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.buckets, key)
}
