package autoscaler

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// Change is one vertex's rescale.
type Change struct {
	From, To int
	// Capacity is the vertex's processing rate at From (busy all the time), NewCapacity the
	// one expected at To; TargetRate the rate it must keep up with.
	Capacity, NewCapacity, TargetRate float64
	// Reason says why, in words.
	Reason string
}

// wireChange is a Change as JSON keeps it: rates JSON has no number for (an idle vertex's
// capacity is +Inf) are null.
type wireChange struct {
	From, To                          int
	Capacity, NewCapacity, TargetRate *float64
	Reason                            string
}

// MarshalJSON implements json.Marshaler.
func (c Change) MarshalJSON() ([]byte, error) {
	return json.Marshal(wireChange{From: c.From, To: c.To, Capacity: num(c.Capacity), NewCapacity: num(c.NewCapacity), TargetRate: num(c.TargetRate), Reason: c.Reason})
}

// UnmarshalJSON implements json.Unmarshaler (null reads as NaN).
func (c *Change) UnmarshalJSON(b []byte) error {
	var w wireChange
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*c = Change{From: w.From, To: w.To, Capacity: val(w.Capacity), NewCapacity: val(w.NewCapacity), TargetRate: val(w.TargetRate), Reason: w.Reason}
	return nil
}

// Decision is one scaling decision: the vertices whose parallelism changes.
type Decision struct {
	Time    time.Time
	Changes map[string]Change
	// WindowStart is when the oldest sample the decision read was taken.
	WindowStart time.Time
	// Evaluated is what the window's metrics said of each vertex (by id), when the decision
	// read them (its metrics report them; never kept in the history).
	Evaluated map[string]Evaluated `json:"-"`
}

// Parallelism is the decision applied to the current parallelism: every vertex's, changed or not.
func (d Decision) Parallelism(topo []Vertex) map[string]int {
	out := make(map[string]int, len(topo))
	for _, v := range topo {
		out[v.ID] = v.Parallelism
		if c, ok := d.Changes[v.ID]; ok {
			out[v.ID] = c.To
		}
	}
	return out
}

// Report is the decision in one line per vertex, in vertex id order.
func (d Decision) Report() string {
	var b strings.Builder
	for _, id := range slices.Sorted(maps.Keys(d.Changes)) {
		c := d.Changes[id]
		fmt.Fprintf(&b, "vertex %s: parallelism %d → %d, processing capacity %.2f → %.2f, target rate %.2f (%s)\n",
			id, c.From, c.To, c.Capacity, c.NewCapacity, c.TargetRate, c.Reason)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Pending is a scale-down waiting out the scale-down interval: since when it has been
// recommended, and the largest parallelism recommended since.
type Pending struct {
	Since time.Time
	To    int
}

// State is what the autoscaler keeps of one job between decisions (and operator restarts).
type State struct {
	// Samples are the metrics collected since the job last started plus the stabilization
	// interval, at most one metrics window back.
	Samples Window
	// History are the recent decisions, oldest first.
	History []Decision
	// PendingDown are the scale-downs waiting out the scale-down interval, by vertex.
	PendingDown map[string]Pending
	// Overrides are the parallelism decided per vertex: the job runs with them.
	Overrides map[string]int
	// ResetNonce is the spec's job.autoscalerResetNonce the state was begun under: another
	// value begins it anew.
	ResetNonce int64
}

// Collect adds a sample taken from a job running since runningSince: samples of the
// stabilization interval after a (re)start are not kept, nor those of an earlier run or older
// than the metrics window.
func Collect(c Config, s State, sample Sample, runningSince time.Time) State {
	from := runningSince.Add(c.Stabilization)
	keep := func(x Sample) bool { return !x.Time.Before(from) && !x.Time.Before(sample.Time.Add(-c.MetricsWindow)) }
	out := s
	out.Samples = nil
	for _, x := range s.Samples {
		if keep(x) && x.Time.Before(sample.Time) {
			out.Samples = append(out.Samples, x)
		}
	}
	if keep(sample) {
		out.Samples = append(out.Samples, sample)
	}
	return out
}

// Decide is the scaling decision at now for a job running since runningSince with topology
// topo, from the state's samples. It decides nothing (an empty decision, with the reason)
// until a whole metrics window after the stabilization interval has been collected, or when
// the metrics do not support a decision. The state returned keeps the pending scale-downs and,
// when the decision changes something, the decision in its history.
func Decide(c Config, topo []Vertex, s State, now, runningSince time.Time) (Decision, State, string) {
	d := Decision{Time: now}
	if !c.Enabled {
		return d, s, "the autoscaler is off"
	}
	start := runningSince.Add(c.Stabilization)
	if now.Before(start.Add(c.MetricsWindow)) || len(s.Samples) == 0 || s.Samples[0].Time.Before(start) {
		return d, s, "the metrics window is not full yet"
	}
	if span := s.Samples[len(s.Samples)-1].Time.Sub(s.Samples[0].Time); span < c.MetricsWindow/2 {
		return d, s, "the samples cover less than half the metrics window"
	}
	eval, why := Evaluate(c, topo, s.Samples)
	if eval == nil {
		return d, s, why
	}
	d.WindowStart, d.Evaluated = s.Samples[0].Time, eval
	out := s
	out.PendingDown = map[string]Pending{}
	d.Changes = map[string]Change{}
	for _, v := range topo {
		e := eval[v.ID]
		to, reason := c.parallelism(v, e)
		if to < v.Parallelism && c.ScaleDownInterval > 0 {
			p, waiting := s.PendingDown[v.ID]
			if !waiting {
				p = Pending{Since: now}
			}
			p.To = max(p.To, to)
			if now.Sub(p.Since) < c.ScaleDownInterval {
				out.PendingDown[v.ID] = p
				continue
			}
			to = p.To
		}
		if to == v.Parallelism {
			continue
		}
		newCap := e.TrueProcessingRate * float64(to) / float64(v.Parallelism)
		d.Changes[v.ID] = Change{From: v.Parallelism, To: to, Capacity: e.TrueProcessingRate, NewCapacity: newCap, TargetRate: e.TargetRate, Reason: reason}
	}
	if len(d.Changes) == 0 {
		d.Changes = nil
		return d, out, "every vertex is within its utilization band"
	}
	out.History = trimHistory(c, append(slices.Clone(s.History), d), now)
	return d, out, ""
}

// parallelism is the parallelism a vertex should have, and why.
func (c Config) parallelism(v Vertex, e Evaluated) (int, string) {
	if slices.Contains(c.Excluded, v.ID) {
		return v.Parallelism, "excluded"
	}
	tpr := e.TrueProcessingRate
	var factor float64
	switch {
	case math.IsInf(tpr, 1) && e.TargetRate == 0:
		factor = 0 // idle: as far down as one decision may go
	case math.IsInf(tpr, 1) || tpr <= 0:
		return v.Parallelism, "no busy time to measure its capacity"
	case tpr >= e.ScaleUpThreshold && tpr <= e.ScaleDownThreshold:
		return v.Parallelism, "within its utilization band"
	default:
		factor = e.TargetCapacity / tpr
	}
	if math.IsNaN(factor) || math.IsInf(factor, 0) {
		return v.Parallelism, "no finite scale factor from its metrics"
	}
	factor = min(max(factor, 1-c.MaxScaleDownFactor), 1+c.MaxScaleUpFactor)
	upper := min(c.MaxParallelism, max(v.MaxParallelism, 1))
	lower := min(c.MinParallelism, upper)
	p := int(min(math.Ceil(factor*float64(v.Parallelism)), float64(upper)))
	p = min(max(p, lower), upper)
	if v.Keyed {
		p = alignToKeyGroups(p, v.MaxParallelism, upper)
	}
	if p > v.Parallelism {
		return p, fmt.Sprintf("scale up: capacity %.2f is below the %.2f needed", tpr, e.ScaleUpThreshold)
	}
	return p, fmt.Sprintf("scale down: capacity %.2f is above the %.2f needed", tpr, e.ScaleDownThreshold)
}

// alignToKeyGroups raises p to the next divisor of the key groups, so that every subtask
// holds as many key groups, when one is in reach (at most half the key groups and upper).
func alignToKeyGroups(p, keyGroups, upper int) int {
	for q := p; q <= keyGroups/2 && q <= upper; q++ {
		if keyGroups%q == 0 {
			return q
		}
	}
	return p
}

// trimHistory keeps the newest HistoryMaxCount decisions younger than HistoryMaxAge.
func trimHistory(c Config, h []Decision, now time.Time) []Decision {
	h = slices.DeleteFunc(h, func(d Decision) bool { return now.Sub(d.Time) > c.HistoryMaxAge })
	if len(h) > c.HistoryMaxCount {
		h = h[len(h)-c.HistoryMaxCount:]
	}
	return h
}
