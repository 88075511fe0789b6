package autoscale

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/flinkop/flinkop/fakeflink/workload"
	"github.com/flinkop/flinkop/operator/autoscaler"
)

// DecideFunc is the decision the loop runs (autoscaler.Decide; tests pass broken variants).
type DecideFunc func(c autoscaler.Config, topo []autoscaler.Vertex, s autoscaler.State, now, runningSince time.Time) (autoscaler.Decision, autoscaler.State, string)

// CollectFunc keeps a sample (autoscaler.Collect; tests pass broken variants).
type CollectFunc func(c autoscaler.Config, s autoscaler.State, sample autoscaler.Sample, runningSince time.Time) autoscaler.State

// Run is one simulated job under the autoscaler.
type Run struct {
	// Spec is the job's workload; Start its vertices' parallelism at the start.
	Spec  workload.Spec
	Start []int
	// KeyGroups is every vertex's max parallelism; vertices after the source are keyed.
	KeyGroups int
	Config    autoscaler.Config
	// Duration is the virtual time simulated; Every how often metrics are sampled and a
	// decision is asked for (the operator's reconcile interval).
	Duration, Every time.Duration
	// Faults happen to the job on the way (sorted by At).
	Faults []Fault
	// BusySamplesOnly leaves accumulated busy time out of the samples: the autoscaler then
	// averages the busy time per second of each sample.
	BusySamplesOnly bool
	// Decide decides (nil: autoscaler.Decide); Collect keeps samples (nil: autoscaler.Collect).
	Decide  DecideFunc
	Collect CollectFunc
}

// Fault is what the fault classes do to the autoscaler's job: a restart (a JobManager crash, a
// TaskManager lost, a failed job; the job processes nothing for its restart time, then runs
// from where it was), or an outage (its REST API, or the API server, does not answer: no
// samples, no decisions) for For.
type Fault struct {
	At      time.Duration
	Restart bool
	For     time.Duration
}

// faultAt applies the faults due by at: whether the job's metrics can be read now, and the
// restart (time since began) of a restart fault, if one came.
func (r Run) faultAt(at time.Duration, done *int) (readable bool, restart time.Duration, restarted bool) {
	readable = true
	for ; *done < len(r.Faults) && r.Faults[*done].At <= at; *done++ {
		if f := r.Faults[*done]; f.Restart {
			restart, restarted = f.At, true
		}
	}
	for _, f := range r.Faults {
		if !f.Restart && f.At <= at && at < f.At+f.For {
			readable = false
		}
	}
	return readable, restart, restarted
}

// Point is the job at one sample.
type Point struct {
	At time.Duration
	// Input is the input rate; Capacity the chain's processing rate at its parallelism.
	Input, Capacity, Backlog float64
	Parallelism              []int
	// Utilization is each vertex's busy share over the last second.
	Utilization []float64
}

// Event is one decision the loop applied.
type Event struct {
	At       time.Duration
	Decision autoscaler.Decision
	// From and To are the chain's parallelism before and after.
	From, To []int
}

// Trace is what a run did.
type Trace struct {
	Began  time.Time
	Points []Point
	Events []Event
	// Restarts are when the job (re)started: its start, every rescale and every restart fault.
	Restarts []time.Duration
}

// MaxSamples bounds one run's samples.
const MaxSamples = 1 << 20

// Simulate runs the loop from began.
func (r Run) Simulate(began time.Time) (Trace, error) {
	n := len(r.Spec.Vertices)
	if len(r.Start) != n || n == 0 {
		return Trace{}, fmt.Errorf("start parallelism for %d vertices, chain of %d", len(r.Start), n)
	}
	if r.Every <= 0 || r.Duration/r.Every > MaxSamples {
		return Trace{}, errors.New("sample interval must be positive and give at most MaxSamples samples")
	}
	decide, collect := r.Decide, r.Collect
	if decide == nil {
		decide = autoscaler.Decide
	}
	if collect == nil {
		collect = autoscaler.Collect
	}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("v%d", i)
	}
	p := append([]int(nil), r.Start...)
	model := workload.New(r.Spec, began, began, 0)
	tr := Trace{Began: began, Restarts: []time.Duration{0}}
	running := began
	var st autoscaler.State
	faults := 0
	for at := r.Every; at <= r.Duration; at += r.Every {
		now := began.Add(at)
		readable, restart, restarted := r.faultAt(at, &faults)
		if restarted {
			if err := model.Restart(began.Add(restart), p); err != nil {
				return tr, err
			}
			running = began.Add(restart)
			tr.Restarts = append(tr.Restarts, restart)
		}
		pt, sample, err := r.look(model, ids, p, began, at)
		if err != nil {
			return tr, err
		}
		tr.Points = append(tr.Points, pt)
		if !readable {
			continue
		}
		st = collect(r.Config, st, sample, running)
		topo := r.topology(ids, p)
		d, next, _ := decide(r.Config, topo, st, now, running)
		st = next
		if len(d.Changes) == 0 || !r.Config.ScalingEnabled {
			continue
		}
		to := d.Parallelism(topo)
		newP := make([]int, n)
		for i, id := range ids {
			newP[i] = to[id]
		}
		tr.Events = append(tr.Events, Event{At: at, Decision: d, From: p, To: newP})
		if err := model.Restart(now, p); err != nil {
			return tr, err
		}
		p, running = newP, now
		tr.Restarts = append(tr.Restarts, at)
	}
	return tr, nil
}

var nan = math.NaN()

// look runs the model to at and reads the job there: the chart's point and the autoscaler's
// sample, as the operator reads it over REST.
func (r Run) look(model *workload.Model, ids []string, p []int, began time.Time, at time.Duration) (Point, autoscaler.Sample, error) {
	now := began.Add(at)
	if err := model.Advance(now, p); err != nil {
		return Point{}, autoscaler.Sample{}, err
	}
	m, err := model.Metrics(p)
	if err != nil {
		return Point{}, autoscaler.Sample{}, err
	}
	capacity, _ := r.Spec.Capacity(p)
	pt := Point{At: at, Input: r.Spec.Input.Rate(at), Capacity: capacity, Backlog: model.Backlog(), Parallelism: append([]int(nil), p...)}
	sample := autoscaler.Sample{Time: now, Vertices: map[string]autoscaler.VertexSample{}}
	for i, vm := range m {
		pt.Utilization = append(pt.Utilization, vm.BusyTimeMsPerSecond/1000)
		vs := autoscaler.VertexSample{Busy: model.BusyTimeMsPerSecond(i, p), AccumulatedBusy: model.AccumulatedBusyMs(i), RecordsIn: model.Position(), RecordsOut: model.Position(), Pending: nan}
		if i == 0 {
			vs.Pending = model.Backlog()
		}
		if r.BusySamplesOnly {
			vs.AccumulatedBusy = nan
		}
		sample.Vertices[ids[i]] = vs
	}
	return pt, sample, nil
}

// topology is the chain as the autoscaler sees it.
func (r Run) topology(ids []string, p []int) []autoscaler.Vertex {
	out := make([]autoscaler.Vertex, len(ids))
	for i, id := range ids {
		out[i] = autoscaler.Vertex{ID: id, Parallelism: p[i], MaxParallelism: r.KeyGroups}
		if i > 0 {
			out[i].Inputs, out[i].Keyed = []string{ids[i-1]}, true
		}
	}
	return out
}
