package workload

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func parse(t *testing.T, s string) Schedule {
	t.Helper()
	sch, err := ParseSchedule(s, time.ParseDuration)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func TestScheduleRates(t *testing.T) {
	for name, tc := range map[string]struct {
		schedule string
		at       time.Duration
		rate     float64
		arrived  float64
	}{
		"before the input began":  {"constant:1000", -time.Second, 0, 0},
		"constant":                {"constant:1000", 90 * time.Second, 1000, 90_000},
		"the first step":          {"steps:0s=100,1m=400,2m=50", 30 * time.Second, 100, 3_000},
		"a later step":            {"steps:0s=100,1m=400,2m=50", 90 * time.Second, 400, 6_000 + 12_000},
		"past the last step":      {"steps:2m=50,0s=100,1m=400", 3 * time.Minute, 50, 6_000 + 24_000 + 3_000},
		"a sine at its peak":      {"sine:base=1000,amplitude=500,period=4m", time.Minute, 1500, 60_000 + 500*240/(2*math.Pi)},
		"a sine after one period": {"sine:base=1000,amplitude=500,period=4m", 4 * time.Minute, 1000, 240_000},
		"in a burst":              {"bursts:base=10,peak=110,every=1m,length=10s", 65 * time.Second, 110, 650 + 100*15},
		"between bursts":          {"bursts:base=10,peak=110,every=1m,length=10s", 30 * time.Second, 10, 300 + 100*10},
	} {
		t.Run(name, func(t *testing.T) {
			s := parse(t, tc.schedule)
			got := []float64{math.Round(s.Rate(tc.at)*1000) / 1000, math.Round(s.Arrived(tc.at)*1000) / 1000}
			want := []float64{tc.rate, math.Round(tc.arrived*1000) / 1000}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("rate, arrived (-want +got):\n%s", diff)
			}
		})
	}
}

// Arrived is the integral of Rate, for every kind of schedule.
func TestArrivedIntegratesRate(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		schedules := []string{
			"constant:700", "steps:0s=100,7s=900,19s=0,40s=300",
			"sine:base=500,amplitude=400,period=37s", "bursts:base=50,peak=900,every=13s,length=4s",
		}
		s, err := ParseSchedule(rapid.SampledFrom(schedules).Draw(t, "schedule"), time.ParseDuration)
		if err != nil {
			t.Fatal(err)
		}
		from := time.Duration(rapid.IntRange(0, 120_000).Draw(t, "from ms")) * time.Millisecond
		span := time.Duration(rapid.IntRange(1, 60_000).Draw(t, "span ms")) * time.Millisecond
		if got, want, ok := integrates(s, from, span); !ok {
			t.Fatalf("arrived %.1f over [%s, %s], the rate integrates to %.1f", got, from, from+span, want)
		}
	})
}

type rates interface {
	Rate(time.Duration) float64
	Arrived(time.Duration) float64
}

// integrates compares what arrived over [from, from+span] with the rate's integral there.
func integrates(s rates, from, span time.Duration) (got, want float64, ok bool) {
	const dt = time.Millisecond
	for at := from; at < from+span; at += dt {
		want += s.Rate(at+dt/2) * dt.Seconds()
	}
	got = s.Arrived(from+span) - s.Arrived(from)
	return got, want, math.Abs(got-want) <= 1+1e-3*want
}

// noCosine is a broken sine whose input forgets the cosine term of its integral.
type noCosine struct{ Schedule }

func (s noCosine) Arrived(t time.Duration) float64 { return s.base * t.Seconds() }

// The check above fails on a broken variant.
func TestIntegratesCatchesABrokenSchedule(t *testing.T) {
	s := noCosine{parse(t, "sine:base=500,amplitude=400,period=40s")}
	if got, want, ok := integrates(s, 0, 10*time.Second); ok {
		t.Errorf("a sine without its cosine term passed: arrived %.1f, integral %.1f", got, want)
	}
	if _, _, ok := integrates(s.Schedule, 0, 10*time.Second); !ok {
		t.Error("the sine itself failed")
	}
}

// Schedules are tenant input: every bound holds on the parsed value.
func TestScheduleRefusals(t *testing.T) {
	many := "steps:0s=1" + strings.Repeat(",1s=1", MaxSteps)
	for name, s := range map[string]string{
		"unknown kind":                     "ramp:1",
		"a negative rate":                  "constant:-1",
		"not a number":                     "constant:NaN",
		"an infinite rate":                 "constant:1e999",
		"above the bound":                  "constant:2e9",
		"too many steps":                   many,
		"a step without a rate":            "steps:0s",
		"no step at 0":                     "steps:1m=5",
		"a negative step time":             "steps:0s=1,-1m=5",
		"a sine below zero":                "sine:base=100,amplitude=200,period=1h",
		"a sine without a period":          "sine:base=100,amplitude=20",
		"too short a period":               "sine:base=100,amplitude=20,period=1ms",
		"too long a period":                "sine:base=100,amplitude=20,period=9000h",
		"an unknown argument":              "sine:base=100,amplitude=20,period=1h,phase=2",
		"a repeated argument":              "sine:base=100,base=200,amplitude=20,period=1h",
		"a burst longer than its interval": "bursts:base=1,peak=2,every=1m,length=2m",
		"an empty burst":                   "bursts:base=1,peak=2,every=1m,length=0s",
		"two steps at one time":            "steps:0s=1,1m=2,60s=3",
	} {
		if _, err := ParseSchedule(s, time.ParseDuration); err == nil {
			t.Errorf("%s: %q was accepted", name, s)
		}
	}
}
