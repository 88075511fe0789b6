package autoscaler

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Keys of the autoscaler's state ConfigMap (autoscaler-<name>), as the Apache operator names
// its own (the values are Flinkop's).
const (
	KeyCollectedMetrics     = "collectedMetrics"
	KeyScalingHistory       = "scalingHistory"
	KeyParallelismOverrides = "parallelismOverrides"
	KeyPendingScaleDowns    = "pendingScaleDowns"
	KeyResetNonce           = "resetNonce"
)

// Bounds of the state, so that its ConfigMap stays well under the API server's limit.
const (
	// MaxVertices is the largest job graph the autoscaler takes on.
	MaxVertices = 128
	// MaxSamples is the most samples one window keeps (the oldest go first).
	MaxSamples = 60
)

// Observed is what one look at a running job collected for the autoscaler.
type Observed struct {
	Topology []Vertex
	Sample   Sample
	// RunningSince is when the job last started running (its RUNNING timestamp).
	RunningSince time.Time
}

// Step is one look at a running job: the sample is kept, a decision is made, and a decision
// that changes something (with scaling enabled) becomes the state's parallelism overrides; its
// samples go, as the rescale restarts the job. Overrides of vertices the job no longer has
// are dropped.
func Step(c Config, s State, o Observed, now time.Time) (State, Decision, string) {
	s = Collect(c, s, o.Sample, o.RunningSince)
	if n := len(s.Samples); n > MaxSamples {
		s.Samples = s.Samples[n-MaxSamples:]
	}
	for id := range s.Overrides {
		if !slices.ContainsFunc(o.Topology, func(v Vertex) bool { return v.ID == id }) {
			delete(s.Overrides, id)
		}
	}
	d, next, why := Decide(c, o.Topology, s, now, o.RunningSince)
	if len(d.Changes) == 0 || !c.ScalingEnabled {
		return next, d, why
	}
	next.Overrides = maps.Clone(s.Overrides)
	if next.Overrides == nil {
		next.Overrides = map[string]int{}
	}
	for id, ch := range d.Changes {
		next.Overrides[id] = ch.To
	}
	next.Samples = nil
	return next, d, ""
}

// OverridesValue is the overrides as pipeline.jobvertex-parallelism-overrides writes them
// ("vid:p,vid:p", by vertex id).
func OverridesValue(o map[string]int) string {
	parts := make([]string, 0, len(o))
	for _, id := range slices.Sorted(maps.Keys(o)) {
		parts = append(parts, id+":"+strconv.Itoa(o[id]))
	}
	return strings.Join(parts, ",")
}

// wireSample is a sample as the ConfigMap keeps it: per vertex busy, accumulated busy,
// records in, records out and pending, null where unknown.
type wireSample struct {
	T int64                  `json:"t"`
	V map[string][5]*float64 `json:"v"`
}

// Encode is the state as its ConfigMap's data.
func (s State) Encode() (map[string]string, error) {
	samples := make([]wireSample, len(s.Samples))
	for i, x := range s.Samples {
		w := wireSample{T: x.Time.UnixMilli(), V: map[string][5]*float64{}}
		for id, v := range x.Vertices {
			w.V[id] = [5]*float64{num(v.Busy), num(v.AccumulatedBusy), num(v.RecordsIn), num(v.RecordsOut), num(v.Pending)}
		}
		samples[i] = w
	}
	out := map[string]string{KeyParallelismOverrides: OverridesValue(s.Overrides), KeyResetNonce: strconv.FormatInt(s.ResetNonce, 10)}
	for key, v := range map[string]any{KeyCollectedMetrics: samples, KeyScalingHistory: s.History, KeyPendingScaleDowns: s.PendingDown} {
		data, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", key, err)
		}
		out[key] = string(data)
	}
	return out, nil
}

// Decode reads a state from its ConfigMap's data; a missing key is empty.
func Decode(data map[string]string) (State, error) {
	var s State
	var samples []wireSample
	for key, dst := range map[string]any{KeyCollectedMetrics: &samples, KeyScalingHistory: &s.History, KeyPendingScaleDowns: &s.PendingDown} {
		if v, ok := data[key]; ok && v != "" {
			if err := json.Unmarshal([]byte(v), dst); err != nil {
				return State{}, fmt.Errorf("%s: %w", key, err)
			}
		}
	}
	for _, w := range samples {
		x := Sample{Time: time.UnixMilli(w.T).UTC(), Vertices: map[string]VertexSample{}}
		for id, v := range w.V {
			x.Vertices[id] = VertexSample{Busy: val(v[0]), AccumulatedBusy: val(v[1]), RecordsIn: val(v[2]), RecordsOut: val(v[3]), Pending: val(v[4])}
		}
		s.Samples = append(s.Samples, x)
	}
	if v := data[KeyParallelismOverrides]; v != "" {
		s.Overrides = map[string]int{}
		for _, kv := range strings.Split(v, ",") {
			id, p, ok := strings.Cut(kv, ":")
			n, err := strconv.Atoi(p)
			if !ok || err != nil || n < 1 {
				return State{}, fmt.Errorf("%s: %q is not vertex:parallelism", KeyParallelismOverrides, kv)
			}
			s.Overrides[id] = n
		}
	}
	if v := data[KeyResetNonce]; v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return State{}, fmt.Errorf("%s: %w", KeyResetNonce, err)
		}
		s.ResetNonce = n
	}
	return s, nil
}

func num(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

func val(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
