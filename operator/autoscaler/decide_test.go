package autoscaler

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// chain is a keyed source → sink job with 128 key groups.
func chain(src, sink int) []Vertex {
	return []Vertex{
		{ID: "src", Parallelism: src, MaxParallelism: 128},
		{ID: "sink", Parallelism: sink, MaxParallelism: 128, Inputs: []string{"src"}, Keyed: true},
	}
}

// steady is a window of samples every minute over [from, to]: the source reads rate records/s
// and its backlog grows by growth records/s; both vertices are busy as given.
func steady(from, to time.Duration, rate, growth, srcBusy, sinkBusy float64) Window {
	var w Window
	for at := from; at <= to; at += time.Minute {
		n := rate * at.Seconds()
		w = append(w, Sample{Time: t0.Add(at), Vertices: map[string]VertexSample{
			"src":  {Busy: srcBusy, AccumulatedBusy: math.NaN(), RecordsIn: n, RecordsOut: n, Pending: growth * at.Seconds()},
			"sink": {Busy: sinkBusy, AccumulatedBusy: math.NaN(), RecordsIn: n, RecordsOut: 0, Pending: math.NaN()},
		}})
	}
	return w
}

func enabled(mod func(c *Config)) Config {
	c := Defaults()
	c.Enabled, c.ScaleDownInterval = true, 0
	if mod != nil {
		mod(&c)
	}
	return c
}

func TestEvaluate(t *testing.T) {
	c := enabled(nil)
	got, why := Evaluate(c, chain(2, 1), steady(5*time.Minute, 20*time.Minute, 1000, 100, 500, 250))
	if why != "" {
		t.Fatal(why)
	}
	// The source reads 1,000/s at half its time: 2,000/s capacity; the backlog grows 100/s, so
	// 1,100/s must be processed, and 1,100 by the sink, which reads 1,000/s at a quarter.
	src, sink := got["src"], got["sink"]
	if src.TrueProcessingRate != 2000 || src.TargetRate != 1100 || sink.TrueProcessingRate != 4000 || sink.TargetRate != 1100 {
		t.Errorf("source %+v\nsink %+v", src, sink)
	}
	// Lag 120,000 at the end, caught up in 30 min: 66.67/s more. Upper utilization 1.0.
	if want := 120000.0/1800 + 1100; math.Abs(src.ScaleUpThreshold-want) > 1e-9 {
		t.Errorf("scale-up threshold %v, want %v", src.ScaleUpThreshold, want)
	}
	if _, why := Evaluate(c, chain(2, 1), steady(0, 0, 1, 0, 1, 1)); why == "" {
		t.Error("a window of one sample evaluated")
	}
	broken := steady(0, 10*time.Minute, 1, 0, 1, 1)
	broken[3].Vertices["sink"] = VertexSample{Busy: math.NaN(), AccumulatedBusy: math.NaN()}
	if _, why := Evaluate(c, chain(2, 1), broken); !strings.Contains(why, "busy") {
		t.Errorf("a NaN busy time evaluated: %q", why)
	}
}

func TestDecide(t *testing.T) {
	for name, tc := range map[string]struct {
		conf    Config
		topo    []Vertex
		window  Window
		now     time.Duration
		want    map[string]int // nil: no change
		wantWhy string
	}{
		"off": {conf: Defaults(), topo: chain(2, 1), window: steady(5*time.Minute, 20*time.Minute, 1000, 0, 500, 250), now: 20 * time.Minute, wantWhy: "off"},
		"window not full": {
			conf: enabled(nil), topo: chain(2, 1), window: steady(5*time.Minute, 15*time.Minute, 1000, 0, 500, 250),
			now: 15 * time.Minute, wantWhy: "not full",
		},
		"within the band": {
			conf: enabled(nil), topo: chain(2, 2), window: steady(5*time.Minute, 20*time.Minute, 1000, 0, 700, 350),
			now: 20 * time.Minute, wantWhy: "within",
		},
		// Capacity 1,000/s for 1,500/s (+ its backlog): 1,500/0.7 + 1,500×300/1,800 +
		// 450,000/1,800 = 2,643 → ×2.643 → 3; the sink (keyed, 128 key groups) 1,500 of
		// 4,000 is in its band.
		"scale up": {
			conf: enabled(nil), topo: chain(1, 1), window: steady(5*time.Minute, 20*time.Minute, 1000, 500, 1000, 250),
			now: 20 * time.Minute, want: map[string]int{"src": 3, "sink": 1},
		},
		// The sink needs 5,464/s of 3,000/s at 3 subtasks: 6, aligned to 8 (of 128 key groups).
		"scale up aligned to key groups": {
			conf: enabled(nil), topo: chain(8, 3),
			window: steady(5*time.Minute, 20*time.Minute, 3000, 300, 375, 1000), now: 20 * time.Minute, want: map[string]int{"src": 8, "sink": 8},
		},
		"scale up capped": {
			conf: enabled(func(c *Config) { c.MaxParallelism = 2 }), topo: chain(1, 1),
			window: steady(5*time.Minute, 20*time.Minute, 1000, 500, 1000, 250), now: 20 * time.Minute, want: map[string]int{"src": 2, "sink": 1},
		},
		"excluded": {
			conf: enabled(func(c *Config) { c.Excluded = []string{"src"} }), topo: chain(1, 1),
			window: steady(5*time.Minute, 20*time.Minute, 1000, 500, 1000, 250), now: 20 * time.Minute, wantWhy: "within",
		},
		// 100/s on 10 subtasks of 1,000: at most 0.4× in one step.
		"scale down as far as allowed": {
			conf: enabled(nil), topo: chain(10, 1),
			window: steady(5*time.Minute, 20*time.Minute, 100, 0, 10, 50), now: 20 * time.Minute, want: map[string]int{"src": 4, "sink": 1},
		},
		"idle": {
			conf: enabled(nil), topo: chain(10, 4), window: steady(5*time.Minute, 20*time.Minute, 0, 0, 0, 0),
			now: 20 * time.Minute, want: map[string]int{"src": 4, "sink": 2},
		},
		"min parallelism": {
			conf: enabled(func(c *Config) { c.MinParallelism = 6 }), topo: chain(10, 8),
			window: steady(5*time.Minute, 20*time.Minute, 0, 0, 0, 0), now: 20 * time.Minute, want: map[string]int{"src": 6, "sink": 8},
		},
	} {
		t.Run(name, func(t *testing.T) {
			d, _, why := Decide(tc.conf, tc.topo, State{Samples: tc.window}, t0.Add(tc.now), t0)
			if tc.want == nil {
				if len(d.Changes) != 0 || !strings.Contains(why, tc.wantWhy) {
					t.Fatalf("changes %v (%q), want none because %q", d.Changes, why, tc.wantWhy)
				}
				return
			}
			if diff := cmp.Diff(tc.want, d.Parallelism(tc.topo)); diff != "" {
				t.Errorf("parallelism (-want +got):\n%s\n%s", diff, d.Report())
			}
		})
	}
}

// A scale-down waits out the scale-down interval, at the largest parallelism recommended
// meanwhile; a recommendation to stay cancels it.
func TestScaleDownInterval(t *testing.T) {
	c := enabled(func(c *Config) { c.ScaleDownInterval = 30 * time.Minute })
	topo := chain(10, 1)
	low := steady(5*time.Minute, 20*time.Minute, 100, 0, 10, 50)
	d, s, why := Decide(c, topo, State{Samples: low}, t0.Add(20*time.Minute), t0)
	if len(d.Changes) != 0 || s.PendingDown["src"].Since != t0.Add(20*time.Minute) {
		t.Fatalf("changes %v (%q), pending %v: want the scale-down pending", d.Changes, why, s.PendingDown)
	}
	s.Samples = steady(35*time.Minute, 50*time.Minute, 100, 0, 10, 50)
	if d, s, _ = Decide(c, topo, s, t0.Add(50*time.Minute), t0); d.Changes["src"].To != 4 || len(s.History) != 1 {
		t.Errorf("after the interval: %v, history %d", d.Changes, len(s.History))
	}
	_, s, _ = Decide(c, topo, State{Samples: low}, t0.Add(20*time.Minute), t0)
	s.Samples = steady(25*time.Minute, 40*time.Minute, 700, 0, 700, 350)
	if _, s, _ = Decide(c, topo, s, t0.Add(40*time.Minute), t0); len(s.PendingDown) != 0 {
		t.Errorf("a scale-down still pending after a window within the band: %v", s.PendingDown)
	}
}

func TestCollect(t *testing.T) {
	c := enabled(nil)
	var s State
	for _, at := range []time.Duration{time.Minute, 6 * time.Minute, 10 * time.Minute, 30 * time.Minute} {
		s = Collect(c, s, Sample{Time: t0.Add(at)}, t0)
	}
	var got []time.Duration
	for _, x := range s.Samples {
		got = append(got, x.Time.Sub(t0))
	}
	// Stabilization 5 min drops the first; the window (15 min) the next two.
	if diff := cmp.Diff([]time.Duration{30 * time.Minute}, got); diff != "" {
		t.Errorf("samples kept (-want +got):\n%s", diff)
	}
	if s = Collect(c, s, Sample{Time: t0.Add(31 * time.Minute)}, t0.Add(29*time.Minute)); len(s.Samples) != 0 {
		t.Errorf("samples of the run before a restart kept: %v", s.Samples)
	}
}
