package workload

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Bounds on a schedule written in a resource's configuration (tenant input).
const (
	// MaxRate bounds any rate, in records per second.
	MaxRate = 1e9
	// MaxSteps bounds the steps of a steps schedule.
	MaxSteps = 64
	// MinPeriod bounds a sine's period and a burst's interval from below.
	MinPeriod = time.Second
	// MaxPeriod bounds a sine's period, a burst's interval and a step's time.
	MaxPeriod = 366 * 24 * time.Hour
)

// Schedule is an input rate over time: Rate(t) records per second t after the input began,
// and Arrived(t) records in all by then.
type Schedule struct {
	kind string
	// base is the constant rate, the sine's mean, the rate between bursts.
	base float64
	// amplitude is the sine's; peak the rate during a burst.
	amplitude, peak float64
	// period is the sine's period or the interval between burst starts; length a burst's.
	period, length time.Duration
	// steps are the steps of a steps schedule, sorted by their start (the first at 0).
	steps []step
}

type step struct {
	at   time.Duration
	rate float64
}

// Constant is a schedule of one rate.
func Constant(rate float64) Schedule { return Schedule{kind: "constant", base: rate} }

// Rate is the input rate t after the input began (0 before).
func (s Schedule) Rate(t time.Duration) float64 {
	if t < 0 {
		return 0
	}
	switch s.kind {
	case "steps":
		i, _ := slices.BinarySearchFunc(s.steps, t, func(st step, t time.Duration) int { return cmp.Compare(st.at, t) })
		if i == len(s.steps) || s.steps[i].at > t {
			i--
		}
		return s.steps[i].rate
	case "sine":
		return s.base + s.amplitude*math.Sin(2*math.Pi*t.Seconds()/s.period.Seconds())
	case "bursts":
		if t%s.period < s.length {
			return s.peak
		}
		return s.base
	}
	return s.base
}

// Arrived is the input that arrived in the first t after the input began.
func (s Schedule) Arrived(t time.Duration) float64 {
	if t <= 0 {
		return 0
	}
	sec := t.Seconds()
	switch s.kind {
	case "steps":
		total := 0.0
		for i, st := range s.steps {
			end := t
			if i+1 < len(s.steps) && s.steps[i+1].at < t {
				end = s.steps[i+1].at
			}
			if end > st.at {
				total += st.rate * (end - st.at).Seconds()
			}
		}
		return total
	case "sine":
		p := s.period.Seconds()
		return s.base*sec + s.amplitude*p/(2*math.Pi)*(1-math.Cos(2*math.Pi*sec/p))
	case "bursts":
		full := int64(t / s.period)
		within := min(t%s.period, s.length)
		burst := time.Duration(full)*s.length + within
		return s.base*sec + (s.peak-s.base)*burst.Seconds()
	}
	return s.base * sec
}

// ParseSchedule reads a schedule (durations read by dur, as Flink reads them):
//
//	constant:1000
//	steps:0s=1000,30min=5000,2h=1000
//	sine:base=1000,amplitude=800,period=1d
//	bursts:base=1000,peak=8000,every=1h,length=5min
func ParseSchedule(s string, dur func(string) (time.Duration, error)) (Schedule, error) {
	kind, args, _ := strings.Cut(strings.TrimSpace(s), ":")
	switch kind {
	case "constant":
		r, err := parseRate(args)
		return Constant(r), err
	case "steps":
		return parseSteps(args, dur)
	case "sine", "bursts":
		return parseShape(kind, args, dur)
	}
	return Schedule{}, fmt.Errorf("input schedule %q: want one of constant, steps, sine, bursts", kind)
}

func parseSteps(args string, dur func(string) (time.Duration, error)) (Schedule, error) {
	out := Schedule{kind: "steps"}
	parts := strings.Split(args, ",")
	if len(parts) > MaxSteps {
		return out, fmt.Errorf("steps: %d steps, at most %d", len(parts), MaxSteps)
	}
	for _, p := range parts {
		at, rate, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok {
			return out, fmt.Errorf("steps: %q is not <time>=<rate>", p)
		}
		d, err := dur(at)
		if err != nil || d < 0 || d > MaxPeriod {
			return out, fmt.Errorf("steps: time %q: want a duration from 0 to %s", at, MaxPeriod)
		}
		r, err := parseRate(rate)
		if err != nil {
			return out, err
		}
		out.steps = append(out.steps, step{at: d, rate: r})
	}
	slices.SortStableFunc(out.steps, func(a, b step) int { return cmp.Compare(a.at, b.at) })
	if out.steps[0].at != 0 {
		return out, fmt.Errorf("steps: the first step must start at 0")
	}
	for i := 1; i < len(out.steps); i++ {
		if out.steps[i].at == out.steps[i-1].at {
			return out, fmt.Errorf("steps: two steps at %s", out.steps[i].at)
		}
	}
	return out, nil
}

func parseShape(kind, args string, dur func(string) (time.Duration, error)) (Schedule, error) {
	out := Schedule{kind: kind}
	want := map[string]bool{"base": true, "amplitude": kind == "sine", "period": kind == "sine", "peak": kind == "bursts", "every": kind == "bursts", "length": kind == "bursts"}
	seen := map[string]bool{}
	for _, p := range strings.Split(args, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		if !want[k] || seen[k] {
			return out, fmt.Errorf("%s: unknown or repeated argument %q", kind, k)
		}
		seen[k] = true
		var err error
		switch k {
		case "base":
			out.base, err = parseRate(v)
		case "amplitude":
			out.amplitude, err = parseRate(v)
		case "peak":
			out.peak, err = parseRate(v)
		case "period", "every":
			out.period, err = dur(v)
			if err == nil && (out.period < MinPeriod || out.period > MaxPeriod) {
				err = fmt.Errorf("%s: %s %q: want %s to %s", kind, k, v, MinPeriod, MaxPeriod)
			}
		case "length":
			out.length, err = dur(v)
		}
		if err != nil {
			return out, err
		}
	}
	for k, w := range want {
		if w && !seen[k] {
			return out, fmt.Errorf("%s: %s is missing", kind, k)
		}
	}
	if kind == "sine" && out.amplitude > out.base {
		return out, fmt.Errorf("sine: amplitude %g above base %g would make the rate negative", out.amplitude, out.base)
	}
	if kind == "bursts" && (out.length <= 0 || out.length > out.period) {
		return out, fmt.Errorf("bursts: length %s: want more than 0 and at most every (%s)", out.length, out.period)
	}
	return out, nil
}

func parseRate(s string) (float64, error) {
	r, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(r) || r < 0 || r > MaxRate {
		return 0, fmt.Errorf("rate %q: want a number of records per second from 0 to %g", s, float64(MaxRate))
	}
	return r, nil
}
