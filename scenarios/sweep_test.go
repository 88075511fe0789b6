package scenarios

import (
	"testing"
)

// BenchmarkSweep measures whole fault-injected runs (DefaultSteps actions on average, then the
// settle phase) on the fake backend, on every CPU; it reports runs per minute.
func BenchmarkSweep(b *testing.B) {
	sum, err := Sweep(SweepOptions{Seeds: b.N, BaseSeed: 1})
	if err != nil {
		b.Fatal(err)
	}
	if len(sum.Violations) > 0 {
		b.Fatalf("%d violations:\n%s", len(sum.Violations), sum)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Minutes(), "runs/min")
	b.ReportMetric(float64(sum.Actions)/float64(b.N), "actions/run")
	b.ReportMetric(float64(sum.Reconciles)/float64(b.N), "reconciles/run")
}
