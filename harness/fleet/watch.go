package fleet

import (
	"context"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// tracker follows every FlinkDeployment of the namespace through a watch: its latest state,
// and when each generation was first seen observed by the operator.
type tracker struct {
	mu       sync.Mutex
	latest   map[string]*flinkv1beta1.FlinkDeployment
	observed map[string]map[int64]time.Time // name → generation → first seen observed
}

func newTracker() *tracker {
	return &tracker{latest: map[string]*flinkv1beta1.FlinkDeployment{}, observed: map[string]map[int64]time.Time{}}
}

// run watches until ctx ends, watching again whenever the API server ends a watch.
func (t *tracker) run(ctx context.Context, c client.WithWatch, namespace string) {
	for ctx.Err() == nil {
		w, err := c.Watch(ctx, &flinkv1beta1.FlinkDeploymentList{}, client.InNamespace(namespace))
		if err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
			continue
		}
		for ev := range w.ResultChan() {
			if d, ok := ev.Object.(*flinkv1beta1.FlinkDeployment); ok {
				t.see(d, time.Now())
			}
		}
		w.Stop()
	}
}

func (t *tracker) see(d *flinkv1beta1.FlinkDeployment, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.latest[d.Name] = d
	gens := t.observed[d.Name]
	if gens == nil {
		gens = map[int64]time.Time{}
		t.observed[d.Name] = gens
	}
	if g := d.Status.ObservedGeneration; g > 0 {
		if _, ok := gens[g]; !ok {
			gens[g] = at
		}
	}
}

// converged counts the deployments of names running generation gen on a ready cluster.
func (t *tracker) converged(names []string, gen int64) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, name := range names {
		d := t.latest[name]
		if d != nil && d.Generation == gen && d.Status.ObservedGeneration == gen &&
			d.Status.LifecycleState == flinkv1beta1.LifecycleStable &&
			d.Status.JobStatus.State == flinkv1beta1.JobStatusRunning &&
			d.Status.JobManagerDeploymentStatus == flinkv1beta1.JobManagerReady {
			n++
		}
	}
	return n
}

// observedAt is when the operator was first seen to have observed generation gen of name.
func (t *tracker) observedAt(name string, gen int64) (time.Time, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	at, ok := t.observed[name][gen]
	return at, ok
}
