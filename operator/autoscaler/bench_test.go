package autoscaler

import (
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"
)

// fleetJob is one autoscaled job of a benchmark fleet: a chain of three keyed vertices with a
// full window of samples (15 minutes at one a minute), and its next sample.
func fleetJob(i int) (State, Observed) {
	topo := []Vertex{
		{ID: fmt.Sprintf("%032x", 3*i), Parallelism: 4, MaxParallelism: 128},
		{ID: fmt.Sprintf("%032x", 3*i+1), Parallelism: 4, MaxParallelism: 128, Keyed: true},
		{ID: fmt.Sprintf("%032x", 3*i+2), Parallelism: 2, MaxParallelism: 128, Keyed: true},
	}
	topo[1].Inputs, topo[2].Inputs = []string{topo[0].ID}, []string{topo[1].ID}
	sample := func(m int) Sample {
		s := Sample{Time: t0.Add(time.Duration(m) * time.Minute), Vertices: map[string]VertexSample{}}
		n := float64(m*60) * float64(1000+i%500)
		for k, v := range topo {
			s.Vertices[v.ID] = VertexSample{Busy: 300 + float64(100*k), AccumulatedBusy: math.NaN(), RecordsIn: n, RecordsOut: n, Pending: float64(i % 7 * m)}
		}
		return s
	}
	var st State
	for m := 10; m < 25; m++ {
		st.Samples = append(st.Samples, sample(m))
	}
	return st, Observed{Topology: topo, Sample: sample(25), RunningSince: t0}
}

// BenchmarkStepFleet steps 1,000 autoscaled jobs once each per iteration (what one reconcile
// interval costs the operator's autoscaler), and reports decisions per second and the state
// each job keeps: in memory, and in its ConfigMap.
func BenchmarkStepFleet(b *testing.B) {
	const jobs = 1000
	c := Defaults()
	c.Enabled, c.ScaleDownInterval = true, 0
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	states, seen := make([]State, jobs), make([]Observed, jobs)
	for i := range jobs {
		states[i], seen[i] = fleetJob(i)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	data, err := states[0].Encode()
	if err != nil {
		b.Fatal(err)
	}
	size := 0
	for _, v := range data {
		size += len(v)
	}
	b.ResetTimer()
	for b.Loop() {
		for i := range jobs {
			Step(c, states[i], seen[i], seen[i].Sample.Time)
		}
	}
	b.ReportMetric(float64(b.N*jobs)/b.Elapsed().Seconds(), "decisions/s")
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/jobs, "heap-B/job")
	b.ReportMetric(float64(size), "configmap-B/job")
}
