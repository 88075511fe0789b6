package decide

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/autoscaler"
)

// autoscaled is a deployed, stable job with the autoscaler on (windows of 4 minutes after a
// minute of stabilization, scale-downs at once).
func autoscaled(mods ...func(*flinkv1beta1.FlinkDeployment)) *flinkv1beta1.FlinkDeployment {
	on := func(d *flinkv1beta1.FlinkDeployment) {
		for k, v := range map[string]string{
			"job.autoscaler.enabled": "true", "job.autoscaler.metrics.window": "4m",
			"job.autoscaler.stabilization.interval": "1m", "job.autoscaler.scale-down.interval": "0",
		} {
			d.Spec.FlinkConfiguration.Set(k, v)
		}
		r := newReconciledSpec(d.Spec, 1, false, RestoreHA)
		d.Status.ReconciliationStatus.LastReconciledSpec, d.Status.ReconciliationStatus.LastStableSpec = r.Encode(), r.Encode()
	}
	return deployed(ls, append([]func(*flinkv1beta1.FlinkDeployment){on}, mods...)...)
}

// overloaded is what the autoscaler observes of a one-vertex job whose single subtask is busy
// all the time reading 1,000 records/s while its backlog grows 500 a second, for 5 minutes.
func overloaded(state autoscaler.State) *AutoscalerObservation {
	var samples autoscaler.Window
	for m := 5; m >= 0; m-- {
		at := now.Add(-time.Duration(m) * time.Minute)
		n := float64(5-m) * 60
		samples = append(samples, autoscaler.Sample{Time: at, Vertices: map[string]autoscaler.VertexSample{
			"src": {Busy: 1000, AccumulatedBusy: math.NaN(), RecordsIn: 1000 * n, RecordsOut: 1000 * n, Pending: 500 * n},
		}})
	}
	state.Samples = samples[:len(samples)-1]
	return &AutoscalerObservation{State: state, StateFound: true, Collected: &autoscaler.Observed{
		Topology:     []autoscaler.Vertex{{ID: "src", Parallelism: 2, MaxParallelism: 128}},
		Sample:       samples[len(samples)-1],
		RunningSince: now.Add(-30 * time.Minute),
	}}
}

func TestAutoscaleStep(t *testing.T) {
	five := int64(5)
	for name, tc := range map[string]struct {
		d           *flinkv1beta1.FlinkDeployment
		a           *AutoscalerObservation
		wantAction  ActionKind
		wantEvent   string
		wantOver    string // the saved overrides
		job         string // the observed job state (default RUNNING)
		left        bool   // the autoscaler's state ConfigMap is left while it is off
		below       bool   // the source runs below its requested parallelism
		wantNoEvent string
		wantLook    bool // the look is in the result, for the metrics
	}{
		"a decision is saved and reported": {
			d: autoscaled(), a: overloaded(autoscaler.State{}), wantAction: ActSaveAutoscalerState,
			wantEvent: "ScalingReport", wantOver: "src:", wantLook: true,
		},
		"off: nothing":                {d: deployed(ls), a: nil, wantAction: ActNone},
		"the job restarting: nothing": {d: autoscaled(), a: overloaded(autoscaler.State{}), job: "RESTARTING", wantAction: ActNone},
		"another's state ConfigMap: a warning, no write": {
			d: autoscaled(), a: &AutoscalerObservation{StateError: "ConfigMap autoscaler-job is not this resource's"},
			wantAction: ActNone, wantEvent: "ConfigMap autoscaler-job is not this resource's",
		},
		"unreadable metrics: a warning, no decision": {
			d: autoscaled(), a: &AutoscalerObservation{CollectError: "vertex src: no busyTimeMsPerSecond reported"},
			wantAction: ActNone, wantEvent: "no scaling decision: the job's metrics could not be read",
		},
		"options out of bounds: a warning": {d: autoscaled(func(d *flinkv1beta1.FlinkDeployment) {
			d.Spec.FlinkConfiguration.Set("job.autoscaler.utilization.target", "7")
		}), a: overloaded(autoscaler.State{}), wantAction: ActNone, wantEvent: "autoscaler options: job.autoscaler.utilization.target"},
		"scaling off: reported, not applied": {d: autoscaled(func(d *flinkv1beta1.FlinkDeployment) {
			d.Spec.FlinkConfiguration.Set("job.autoscaler.scaling.enabled", "false")
		}), a: overloaded(autoscaler.State{}), wantAction: ActSaveAutoscalerState, wantEvent: "Recommended", wantOver: "", wantLook: true},
		"a reset nonce clears the state": {
			d: autoscaled(func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.AutoscalerResetNonce = &five }),
			a: overloaded(autoscaler.State{Overrides: map[string]int{"src": 9}}), wantAction: ActSaveAutoscalerState, wantEvent: "AutoscalerReset", wantOver: "",
		},
	} {
		t.Run(name, func(t *testing.T) {
			job := "RUNNING"
			if tc.job != "" {
				job = tc.job
			}
			o := cluster(1, job)
			o.Autoscaler, o.AutoscalerStateLeft = tc.a, tc.left
			if tc.below {
				o.Job.VertexParallelism = map[string]int32{"src": 4}
			}
			res := Decide(input(tc.d, o))
			checkLook(t, res.Autoscaler, tc.wantLook)
			if res.Action.Kind != tc.wantAction {
				t.Fatalf("action %s, want %s (events %v)", res.Action.Kind, tc.wantAction, res.Events)
			}
			if tc.wantEvent != "" && !hasEvent(res.Events, tc.wantEvent) {
				t.Errorf("events %v, want one with %q", res.Events, tc.wantEvent)
			}
			if tc.wantNoEvent != "" && hasEvent(res.Events, tc.wantNoEvent) {
				t.Errorf("events %v, want none with %q", res.Events, tc.wantNoEvent)
			}
			if tc.wantAction == ActSaveAutoscalerState {
				got := res.Action.AutoscalerState[autoscaler.KeyParallelismOverrides]
				if tc.wantOver == "" && got != "" || tc.wantOver != "" && !strings.HasPrefix(got, tc.wantOver) {
					t.Errorf("saved overrides %q, want %q…", got, tc.wantOver)
				}
			}
		})
	}
}

// checkLook checks that the result carries the autoscaler's look (every vertex evaluated)
// exactly when want.
func checkLook(t *testing.T, look *AutoscalerLook, want bool) {
	t.Helper()
	if want != (look != nil) || look != nil && len(look.Decision.Evaluated) != len(look.Topology) {
		t.Errorf("autoscaler look %+v, want one: %v", look, want)
	}
}

func TestWithAutoscaler(t *testing.T) {
	one := int64(1)
	user := autoscaled(func(d *flinkv1beta1.FlinkDeployment) {
		d.Spec.FlinkConfiguration.Set(KeyParallelismOverrides, "a:3,b:4")
	})
	for name, tc := range map[string]struct {
		d    *flinkv1beta1.FlinkDeployment
		a    *AutoscalerObservation
		want string
	}{
		"merged, the autoscaler's win": {d: user, a: &AutoscalerObservation{State: autoscaler.State{Overrides: map[string]int{"b": 8, "c": 2}}}, want: "a:3,b:8,c:2"},
		"off":                          {d: user, a: nil, want: "a:3,b:4"},
		"a reset pending":              {d: autoscaled(func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.AutoscalerResetNonce = &one }), a: &AutoscalerObservation{State: autoscaler.State{Overrides: map[string]int{"b": 8}}}, want: ""},
	} {
		t.Run(name, func(t *testing.T) {
			before, _ := tc.d.Spec.FlinkConfiguration.Flatten()
			got := WithAutoscaler(tc.d, tc.a)
			conf, _ := got.Spec.FlinkConfiguration.Flatten()
			if diff := cmp.Diff(tc.want, conf[KeyParallelismOverrides]); diff != "" {
				t.Errorf("overrides (-want +got):\n%s", diff)
			}
			if after, _ := tc.d.Spec.FlinkConfiguration.Flatten(); !cmp.Equal(before, after) {
				t.Error("the resource itself was changed")
			}
		})
	}
}
