package workload

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

var t0 = time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)

// chain is a source of 1,000 records/s per subtask and a sink of 500, fed by input.
func chain(t *testing.T, input string, restart time.Duration) Spec {
	t.Helper()
	return Spec{
		Vertices:    []Vertex{{Name: "source", Capacity: 1000}, {Name: "sink", Capacity: 500}},
		Input:       parse(t, input),
		RestartTime: restart,
	}
}

func TestModel(t *testing.T) {
	for name, tc := range map[string]struct {
		input    string
		p        []int
		run      time.Duration
		restart  time.Duration
		position float64
		backlog  float64
		metrics  []VertexMetrics
	}{
		"below capacity: the input is consumed as it arrives": {
			input: "constant:600", p: []int{1, 2}, run: time.Minute, position: 36_000,
			metrics: []VertexMetrics{
				{BusyTimeMsPerSecond: 600, IdleTimeMsPerSecond: 400, NumRecordsOutPerSecond: 600},
				{BusyTimeMsPerSecond: 600, IdleTimeMsPerSecond: 400, NumRecordsInPerSecond: 600, NumRecordsOutPerSecond: 600},
			},
		},
		"above capacity: a backlog grows, the sink is busy, the source backpressured": {
			input: "constant:800", p: []int{1, 1}, run: time.Minute, position: 30_000, backlog: 18_000,
			metrics: []VertexMetrics{
				{BusyTimeMsPerSecond: 500, BackPressuredTimeMsPerSecond: 500, NumRecordsOutPerSecond: 500, PendingRecords: 18_000},
				{BusyTimeMsPerSecond: 1000, NumRecordsInPerSecond: 500, NumRecordsOutPerSecond: 500},
			},
		},
		"a restart processes nothing, then catches up at capacity": {
			input: "constant:600", p: []int{2, 2}, run: 90 * time.Second, restart: 30 * time.Second, position: 54_000,
			metrics: []VertexMetrics{
				{BusyTimeMsPerSecond: 300, IdleTimeMsPerSecond: 700, NumRecordsOutPerSecond: 600},
				{BusyTimeMsPerSecond: 600, IdleTimeMsPerSecond: 400, NumRecordsInPerSecond: 600, NumRecordsOutPerSecond: 600},
			},
		},
		"still restarting": {
			input: "constant:600", p: []int{2, 2}, run: 20 * time.Second, restart: 30 * time.Second, backlog: 12_000,
			metrics: []VertexMetrics{
				{IdleTimeMsPerSecond: 1000, PendingRecords: 12_000},
				{IdleTimeMsPerSecond: 1000},
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			m := New(chain(t, tc.input, tc.restart), t0, t0, 0)
			if err := m.Advance(t0.Add(tc.run), tc.p); err != nil {
				t.Fatal(err)
			}
			got, err := m.Metrics(tc.p)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]float64{tc.position, tc.backlog}, []float64{m.Position(), m.Backlog()}, cmpopts.EquateApprox(0, 1e-6)); diff != "" {
				t.Errorf("position, backlog (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.metrics, got, cmpopts.EquateApprox(0, 1e-6)); diff != "" {
				t.Errorf("metrics (-want +got):\n%s", diff)
			}
		})
	}
}

// Busy time as Flink's gauge reports it spans the last minute of the run's processing: the
// catch-up after a restart shows in it for a minute, not a second, and a restart begins it anew.
func TestModelBusyTimeSpansAMinute(t *testing.T) {
	m := New(chain(t, "constant:600", 30*time.Second), t0, t0, 0)
	p := []int{2, 2}
	for _, tc := range []struct {
		at           time.Duration
		restart      bool
		source, sink float64
	}{
		{at: 20 * time.Second}, // still restarting: nothing processed yet
		// 45 s of catch-up at the sink's 1,000 records/s, then 15 s of the input's 600.
		{at: 90 * time.Second, source: 450, sink: 900},
		{at: 150 * time.Second, source: 300, sink: 600},
		// Restarted at 150 s, processing again from 180 s: 10 s of catch-up at capacity.
		{at: 190 * time.Second, restart: true, source: 500, sink: 1000},
	} {
		if tc.restart {
			if err := m.Restart(t0.Add(150*time.Second), p); err != nil {
				t.Fatal(err)
			}
		}
		if err := m.Advance(t0.Add(tc.at), p); err != nil {
			t.Fatal(err)
		}
		got := []float64{m.BusyTimeMsPerSecond(0, p), m.BusyTimeMsPerSecond(1, p)}
		if diff := cmp.Diff([]float64{tc.source, tc.sink}, got, cmpopts.EquateApprox(0, 1e-6)); diff != "" {
			t.Errorf("at %v: busy time (-want +got):\n%s", tc.at, diff)
		}
	}
}

// Whatever the input, parallelism and restarts: the input is conserved (consumed plus
// backlog is what arrived), the position never goes back, the throughput never exceeds the
// chain's capacity, and each vertex's times add up to a second.
func TestModelConservesInput(t *testing.T) {
	inputs := []string{"constant:700", "steps:0s=100,30s=3000,90s=0", "sine:base=1500,amplitude=1400,period=2m", "bursts:base=100,peak=5000,every=50s,length=10s"}
	rapid.Check(t, func(t *rapid.T) {
		s, err := ParseSchedule(rapid.SampledFrom(inputs).Draw(t, "input"), time.ParseDuration)
		if err != nil {
			t.Fatal(err)
		}
		restart := time.Duration(rapid.IntRange(0, 20).Draw(t, "restart s")) * time.Second
		var steps []modelStep
		for range rapid.IntRange(1, 30).Draw(t, "steps") {
			steps = append(steps, modelStep{
				p:       []int{rapid.IntRange(1, 8).Draw(t, "pa"), rapid.IntRange(1, 8).Draw(t, "pb"), rapid.IntRange(1, 8).Draw(t, "pc")},
				restart: rapid.Bool().Draw(t, "restart"),
				run:     time.Duration(rapid.IntRange(1, 20_000).Draw(t, "ms")) * time.Millisecond,
			})
		}
		if err := runModel(s, restart, steps, (*Model).Advance); err != nil {
			t.Fatal(err)
		}
	})
}

// The property fails on a broken model that processes input that has not arrived yet.
func TestModelPropertyCatchesABrokenModel(t *testing.T) {
	ahead := func(m *Model, now time.Time, p []int) error {
		c, _ := m.spec.Capacity(p)
		m.position += c * now.Sub(m.at).Seconds()
		m.at = now
		return nil
	}
	steps := []modelStep{{p: []int{4, 4, 4}, run: 10 * time.Second}}
	if err := runModel(Constant(100), 0, steps, ahead); err == nil {
		t.Error("a model that runs ahead of its input passed")
	}
	if err := runModel(Constant(100), 0, steps, (*Model).Advance); err != nil {
		t.Errorf("the model failed: %v", err)
	}
}

type modelStep struct {
	p       []int
	restart bool
	run     time.Duration
}

// runModel runs a chain of three vertices over steps with advance, checking the model's
// properties after each.
func runModel(s Schedule, restart time.Duration, steps []modelStep, advance func(*Model, time.Time, []int) error) error {
	spec := Spec{Vertices: []Vertex{{"a", 300}, {"b", 700}, {"c", 450}}, Input: s, RestartTime: restart}
	m := New(spec, t0, t0, 0)
	now := t0
	for _, st := range steps {
		if st.restart {
			if err := m.Restart(now, st.p); err != nil {
				return err
			}
		}
		before := m.Position()
		now = now.Add(st.run)
		if err := advance(m, now, st.p); err != nil {
			return err
		}
		arrived := s.Arrived(now.Sub(t0))
		if d := m.Position() + m.Backlog() - arrived; math.Abs(d) > 1e-6*max(arrived, 1) {
			return fmt.Errorf("consumed %.1f + backlog %.1f != arrived %.1f", m.Position(), m.Backlog(), arrived)
		}
		if m.Position() < before {
			return fmt.Errorf("position went back from %.1f to %.1f", before, m.Position())
		}
		capacity, _ := spec.Capacity(st.p)
		vms, err := m.Metrics(st.p)
		if err != nil {
			return err
		}
		for i, vm := range vms {
			if vm.NumRecordsOutPerSecond > capacity*(1+1e-9) {
				return fmt.Errorf("vertex %d put out %.1f records/s, above the capacity %.1f", i, vm.NumRecordsOutPerSecond, capacity)
			}
			if sum := vm.BusyTimeMsPerSecond + vm.BackPressuredTimeMsPerSecond + vm.IdleTimeMsPerSecond; math.Abs(sum-1000) > 1e-6 {
				return fmt.Errorf("vertex %d: busy, backpressured and idle add up to %.3f ms/s", i, sum)
			}
		}
	}
	return nil
}

// A parallelism that does not give every vertex a subtask is refused, never a panic or a NaN.
func TestModelRefusesBadParallelism(t *testing.T) {
	for name, p := range map[string][]int{"too few vertices": {1}, "too many": {1, 1, 1}, "a vertex without subtasks": {1, 0}} {
		m := New(chain(t, "constant:10", 0), t0, t0, 0)
		if err := m.Advance(t0.Add(time.Second), p); err == nil {
			t.Errorf("%s: Advance accepted %v", name, p)
		}
		if _, err := m.Metrics(p); err == nil {
			t.Errorf("%s: Metrics accepted %v", name, p)
		}
	}
}
