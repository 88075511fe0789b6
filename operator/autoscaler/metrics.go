package autoscaler

import (
	"math"
	"time"
)

// Vertex is one vertex of a job's graph, as GET /jobs/:jobid and its plan show it.
type Vertex struct {
	ID string
	// Parallelism is the vertex's parallelism now; MaxParallelism its key groups.
	Parallelism, MaxParallelism int
	// Inputs are the ids of the vertices feeding it (none: a source).
	Inputs []string
	// Keyed is true when its input is partitioned by key (ship strategy HASH): its
	// parallelism is then kept a divisor of its key groups where one is in reach.
	Keyed bool
}

// Source reports whether the vertex is a source.
func (v Vertex) Source() bool { return len(v.Inputs) == 0 }

// VertexSample is one vertex's metrics at one collection, read from Flink's
// subtasks/metrics endpoint.
type VertexSample struct {
	// Busy is busyTimeMsPerSecond over the subtasks (by the configured aggregator).
	Busy float64
	// AccumulatedBusy is the busy time the vertex's subtasks have spent since they started,
	// summed over them, in ms (GET /jobs/:jobid's accumulated-busy-time); NaN when not
	// reported. Where a window has it, it measures utilization exactly; otherwise the window's
	// Busy values are averaged.
	AccumulatedBusy float64
	// RecordsIn is the records the vertex has read in all (a source's: from outside, its
	// operator's numRecordsIn); RecordsOut those it has written (numRecordsOut).
	RecordsIn, RecordsOut float64
	// Pending is a source's backlog (pendingRecords summed); NaN when not reported.
	Pending float64
}

// Sample is one collection of a running job's metrics.
type Sample struct {
	Time     time.Time
	Vertices map[string]VertexSample
}

// Evaluated is what one vertex's metrics over the window say.
type Evaluated struct {
	// Utilization is its mean busy share (0 to 1).
	Utilization float64
	// InputRate and OutputRate are the records per second it read and wrote over the window.
	InputRate, OutputRate float64
	// TrueProcessingRate is the records per second it would process busy all the time at its
	// parallelism: InputRate / Utilization (+Inf when it was never busy).
	TrueProcessingRate float64
	// TargetRate is the records per second it must process to keep up: a source's input
	// rate and the growth of its backlog; another vertex's, its inputs' target rates times
	// their output ratio.
	TargetRate float64
	// Lag is a source's backlog at the end of the window; another vertex's, the backlog its
	// inputs will pass on to it (their lag times their output ratio).
	Lag float64
	// ScaleUpThreshold and ScaleDownThreshold bound the processing rate left alone: below
	// the first the vertex scales up, above the second down. TargetCapacity is the
	// processing rate a decision scales it to.
	ScaleUpThreshold, ScaleDownThreshold, TargetCapacity float64
}

// Window is the samples of one metrics window.
type Window []Sample

// utilization is a vertex's busy share over the window: from its accumulated busy time when
// the window's ends report it, else the mean of the samples' busy time per second after the
// first (each describes the time before its sample, Flink's last minute, so the first lies
// outside the window).
func utilization(v Vertex, w Window, dt float64) (float64, bool) {
	a, b := w[0].Vertices[v.ID], w[len(w)-1].Vertices[v.ID]
	if d := b.AccumulatedBusy - a.AccumulatedBusy; d >= 0 && v.Parallelism > 0 {
		return min(d/(dt*1000*float64(v.Parallelism)), 1), true
	}
	busy := 0.0
	for _, s := range w[1:] {
		vs, ok := s.Vertices[v.ID]
		if !ok || math.IsNaN(vs.Busy) || vs.Busy < 0 || vs.Busy > 1000 {
			return 0, false
		}
		busy += vs.Busy
	}
	return busy / float64(len(w)-1) / 1000, true
}

// processingBacklog reports whether a source's backlog at the end of the window is more
// than the lag threshold's worth of its input.
func (c Config) processingBacklog(topo []Vertex, eval map[string]Evaluated) bool {
	for _, v := range topo {
		e := eval[v.ID]
		if v.Source() && e.InputRate > 0 && e.Lag/e.InputRate > c.BacklogLagThreshold.Seconds() {
			return true
		}
	}
	return false
}

// Evaluate reads the window's metrics of every vertex (topology in order: sources first,
// every vertex after its inputs). ok is false, with the reason, when the window cannot
// support a decision: fewer than two samples, a vertex missing from one, or no time between
// the first and the last.
func Evaluate(c Config, topo []Vertex, w Window) (map[string]Evaluated, string) {
	if len(w) < 2 {
		return nil, "fewer than two metric samples in the window"
	}
	first, last := w[0], w[len(w)-1]
	dt := last.Time.Sub(first.Time).Seconds()
	if dt <= 0 {
		return nil, "the window's samples span no time"
	}
	out := make(map[string]Evaluated, len(topo))
	for _, v := range topo {
		a, okA := first.Vertices[v.ID]
		b, okB := last.Vertices[v.ID]
		if !okA || !okB {
			return nil, "vertex " + v.ID + " has no metrics in the window"
		}
		e := Evaluated{InputRate: max(b.RecordsIn-a.RecordsIn, 0) / dt, OutputRate: max(b.RecordsOut-a.RecordsOut, 0) / dt}
		var ok bool
		if e.Utilization, ok = utilization(v, w, dt); !ok {
			return nil, "vertex " + v.ID + " has no valid busy time in the window"
		}
		e.TrueProcessingRate = math.Inf(1)
		if e.Utilization > 0 {
			e.TrueProcessingRate = e.InputRate / e.Utilization
		}
		if v.Source() {
			e.TargetRate = e.InputRate
			if !math.IsNaN(a.Pending) && !math.IsNaN(b.Pending) {
				e.TargetRate = max(e.InputRate+(b.Pending-a.Pending)/dt, 0)
				e.Lag = max(b.Pending, 0)
			}
		} else {
			for _, in := range v.Inputs {
				up, ok := out[in]
				if !ok {
					return nil, "vertex " + v.ID + " comes before its input " + in
				}
				ratio := 1.0
				if up.InputRate > 0 {
					ratio = up.OutputRate / up.InputRate
				}
				e.TargetRate += up.TargetRate * ratio
				e.Lag += up.Lag * ratio
			}
		}
		out[v.ID] = e
	}
	// While a source works off a backlog, every vertex may scale up but none down.
	lower, upper := c.Band()
	if c.processingBacklog(topo, out) {
		upper, lower = 1, 0
	}
	for id, e := range out {
		e.ScaleUpThreshold = c.capacity(e, upper, false)
		e.ScaleDownThreshold = c.capacity(e, lower, true)
		e.TargetCapacity = c.capacity(e, c.TargetUtilization, true)
		out[id] = e
	}
	return out, ""
}

// capacity is the processing rate a vertex needs to run at utilization u while it works off
// its backlog (and, withRestart, the input of a rescale's restart) within the catch-up
// duration; +Inf at utilization 0. Unlike the Apache operator's, it is not rounded to whole
// records per second: rounded, the backlog of a vertex that just keeps up drops out, and it is
// never worked off.
func (c Config) capacity(e Evaluated, u float64, withRestart bool) float64 {
	if u <= 0 {
		return math.Inf(1)
	}
	catchUp := c.CatchUpDuration.Seconds()
	extra := 0.0
	if catchUp > 0 {
		extra = e.Lag / catchUp
		if withRestart {
			extra += e.TargetRate * c.RestartTime.Seconds() / catchUp
		}
	}
	return extra + e.TargetRate/u
}
