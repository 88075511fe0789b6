package harness

import (
	"testing"
	"time"
)

// BenchmarkReconcile measures one reconcile of a running savepoint-mode job with HA on the
// fake backend, with the pod simulator's sync and fakeflink's catch-up after it (one World
// step). Every 20th iteration changes the spec, so upgrades are part of the mix.
func BenchmarkReconcile(b *testing.B) {
	w, err := NewWorld(1)
	if err != nil {
		b.Fatal(err)
	}
	d := DemoDeployment()
	if err := w.Apply(d); err != nil {
		b.Fatal(err)
	}
	if err := w.RunFor(time.Minute); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := w.Reconciles
	for i := 0; b.Loop(); i++ {
		if i%20 == 0 {
			p := int32(2 + i/20%3)
			d.Spec.Job.Parallelism = &p
			if err := w.Apply(d); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := w.Step(); err != nil {
			b.Fatal(err)
		}
	}
	if n := w.Reconciles - start; n > 0 {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/reconcile")
	}
}
