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

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
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
// that changes something becomes the state's parallelism overrides, for every vertex of the
// job (so an in-place rescale leaves none at another value, and ids of vertices the job no
// longer has go with the next decision, not before); its samples go, as the rescale restarts
// the job. With scaling off the decision is only reported, and a new window begins, so the
// same recommendation is not made at every look.
func Step(c Config, s State, o Observed, now time.Time) (State, Decision, string) {
	s = Collect(c, s, o.Sample, o.RunningSince)
	if n := len(s.Samples); n > MaxSamples {
		s.Samples = s.Samples[n-MaxSamples:]
	}
	d, next, why := Decide(c, o.Topology, s, now, o.RunningSince)
	if len(d.Changes) == 0 {
		return next, d, why
	}
	next.Samples = nil
	if c.ScalingEnabled {
		next.Overrides = d.Parallelism(o.Topology)
	}
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

// MaxStateBytes bounds the encoded state: the oldest samples, then the oldest decisions, go
// until it fits (a ConfigMap holds at most 1 MiB).
const MaxStateBytes = 512 << 10

// Encode is the state as its ConfigMap's data, at most MaxStateBytes.
func (s State) Encode() (map[string]string, error) {
	for {
		out, size, err := s.encode()
		if err != nil || size <= MaxStateBytes {
			return out, err
		}
		// An eighth at a time: a few passes, however large the state.
		switch {
		case len(s.Samples) > 0:
			s.Samples = s.Samples[max(1, len(s.Samples)/8):]
		case len(s.History) > 0:
			s.History = s.History[max(1, len(s.History)/8):]
		default:
			return nil, fmt.Errorf("the autoscaler's state takes %d bytes, over %d", size, MaxStateBytes)
		}
	}
}

func (s State) encode() (map[string]string, int, error) {
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
			return nil, 0, fmt.Errorf("encode %s: %w", key, err)
		}
		out[key] = string(data)
	}
	size := 0
	for k, v := range out {
		size += len(k) + len(v)
	}
	return out, size, nil
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
		if len(w.V) > MaxVertices {
			return State{}, fmt.Errorf("%s: a sample of %d vertices", KeyCollectedMetrics, len(w.V))
		}
		x := Sample{Time: time.UnixMilli(w.T).UTC(), Vertices: map[string]VertexSample{}}
		for id, v := range w.V {
			x.Vertices[id] = VertexSample{Busy: val(v[0]), AccumulatedBusy: val(v[1]), RecordsIn: val(v[2]), RecordsOut: val(v[3]), Pending: val(v[4])}
		}
		s.Samples = append(s.Samples, x)
	}
	if v := data[KeyParallelismOverrides]; v != "" {
		o, ok := flinkv1beta1.ParseParallelismOverrides(v)
		if !ok || len(o) > MaxVertices {
			return State{}, fmt.Errorf("%s: want at most %d entries vertex:parallelism, parallelism 1 to %d", KeyParallelismOverrides, MaxVertices, flinkv1beta1.MaxParallelism)
		}
		s.Overrides = map[string]int{}
		for id, n := range o {
			s.Overrides[id] = int(n)
		}
	}
	if len(samples) > MaxSamples || len(s.History) > maxHistoryCount || len(s.PendingDown) > MaxVertices {
		return State{}, fmt.Errorf("more than %d samples, %d decisions or %d pending scale-downs", MaxSamples, maxHistoryCount, MaxVertices)
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
