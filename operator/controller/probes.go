package controller

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/flinkop/flinkop/operator/decide"
)

// probes counts, per resource, the JobManager REST probes that failed in a row, in memory
// (a restarted operator starts from zero, which only probes sooner). Only resources whose
// JobManager does not answer have an entry.
type probes struct {
	mu     sync.Mutex
	failed map[types.NamespacedName]int
}

// before returns the failures in a row recorded for key.
func (p *probes) before(key types.NamespacedName) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failed[key]
}

// record counts one observation: a probe of an available JobManager that failed adds one; an
// answer, or a JobManager that is not available (not probed), starts over.
func (p *probes) record(key types.NamespacedName, o decide.Observation) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if o.JobManager != nil && o.JobManager.Available && !o.RESTReachable {
		if p.failed == nil {
			p.failed = map[types.NamespacedName]int{}
		}
		p.failed[key]++
		return
	}
	delete(p.failed, key)
}

// forget drops key (the resource is gone).
func (p *probes) forget(key types.NamespacedName) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.failed, key)
}
