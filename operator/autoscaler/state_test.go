package autoscaler

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestStateRoundTrip(t *testing.T) {
	s := State{
		Samples:     steady(5*time.Minute, 8*time.Minute, 1000, 10, 500, 250),
		History:     []Decision{{Time: t0, WindowStart: t0.Add(-time.Minute), Changes: map[string]Change{"src": {From: 1, To: 3, Reason: "scale up"}}}},
		PendingDown: map[string]Pending{"sink": {Since: t0, To: 2}},
		Overrides:   map[string]int{"src": 3, "sink": 1},
		ResetNonce:  4,
	}
	data, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s, got, cmpopts.EquateNaNs()); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// A state the resource's tenant could write into its ConfigMap is bounded when read.
func TestDecodeRefusesWhatIsOutOfBounds(t *testing.T) {
	many := make([]string, MaxVertices+1)
	for i := range many {
		many[i] = fmt.Sprintf("v%d:1", i)
	}
	sample := `{"t":0,"v":{}}`
	for name, data := range map[string]map[string]string{
		"too many overrides":        {KeyParallelismOverrides: strings.Join(many, ",")},
		"an override of 2^32 + 1":   {KeyParallelismOverrides: "v:4294967297"},
		"an override of 0":          {KeyParallelismOverrides: "v:0"},
		"not JSON":                  {KeyCollectedMetrics: "[{"},
		"too many samples":          {KeyCollectedMetrics: "[" + strings.TrimSuffix(strings.Repeat(sample+",", MaxSamples+1), ",") + "]"},
		"a nonce that is no number": {KeyResetNonce: "soon"},
	} {
		if _, err := Decode(data); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

// The largest state (every vertex, every sample, the longest history) is cut to fit, the
// oldest samples first.
func TestEncodeFitsTheBound(t *testing.T) {
	var s State
	for m := range MaxSamples {
		x := Sample{Time: t0.Add(time.Duration(m) * time.Minute), Vertices: map[string]VertexSample{}}
		for v := range MaxVertices {
			x.Vertices[fmt.Sprintf("%032x", v)] = VertexSample{Busy: 123.456789, AccumulatedBusy: math.Pi * 1e9, RecordsIn: 1e12 / 7, RecordsOut: 1e12 / 3, Pending: 1e9 / 7}
		}
		s.Samples = append(s.Samples, x)
	}
	data, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	size := 0
	for k, v := range data {
		size += len(k) + len(v)
	}
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if size > MaxStateBytes || len(got.Samples) == 0 || len(got.Samples) == MaxSamples || !got.Samples[len(got.Samples)-1].Time.Equal(s.Samples[MaxSamples-1].Time) {
		t.Errorf("%d bytes (bound %d), %d samples kept, newest %v", size, MaxStateBytes, len(got.Samples), got.Samples[len(got.Samples)-1].Time)
	}
}

// An idle vertex's decision (its capacity +Inf) is saved, not refused by JSON (found in
// review: the scale-down was decided again at every look and never saved).
func TestIdleDecisionEncodes(t *testing.T) {
	c := enabled(nil)
	s := State{Samples: steady(5*time.Minute, 19*time.Minute, 0, 0, 0, 0)}
	o := Observed{Topology: chain(10, 4), Sample: steady(20*time.Minute, 20*time.Minute, 0, 0, 0, 0)[0], RunningSince: t0}
	next, d, why := Step(c, s, o, t0.Add(20*time.Minute))
	if len(d.Changes) == 0 {
		t.Fatalf("no decision for an idle job: %s", why)
	}
	data, err := next.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(data)
	if err != nil || len(got.History) != 1 || got.Overrides["src"] != 4 {
		t.Errorf("decoded %+v, %v", got, err)
	}
}
