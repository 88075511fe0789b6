package bluegreen

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

var now = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// template is the children's spec: fixtures.StatefulDeployment's in the given mode.
func template(mode flinkv1beta1.UpgradeMode) *flinkv1beta1.FlinkDeploymentSpec {
	return &fixtures.StatefulDeployment("", "", mode).Spec
}

// bgIn builds a resource in state st whose last reconciled template is last and current
// template is cur.
func bgIn(st flinkv1beta1.BlueGreenState, last, cur *flinkv1beta1.FlinkDeploymentSpec) *flinkv1beta1.FlinkBlueGreenDeployment {
	bg := &flinkv1beta1.FlinkBlueGreenDeployment{
		ObjectMeta: metav1.ObjectMeta{Name: "bg", Namespace: "ns", UID: "uid-bg"},
		Spec:       flinkv1beta1.FlinkBlueGreenDeploymentSpec{Template: flinkv1beta1.BlueGreenTemplate{Spec: cur}},
		Status: flinkv1beta1.FlinkBlueGreenDeploymentStatus{
			BlueGreenState: st, AbortTimestamp: Epoch, DeploymentReadyTimestamp: Epoch,
			JobStatus: flinkv1beta1.JobStatus{State: flinkv1beta1.JobStatusRunning},
		},
	}
	if last != nil {
		markReconciled(&bg.Status, flinkv1beta1.FlinkBlueGreenDeploymentSpec{Template: flinkv1beta1.BlueGreenTemplate{Spec: last}})
	}
	return bg
}

// childOf is a child of colour c running spec, ready when ready is set.
func childOf(c flinkv1beta1.BlueGreenColor, spec *flinkv1beta1.FlinkDeploymentSpec, ready bool) *flinkv1beta1.FlinkDeployment {
	d := &flinkv1beta1.FlinkDeployment{ObjectMeta: metav1.ObjectMeta{Name: c.ChildName("bg"), Generation: 1}}
	d.Spec = flinkv1beta1.BlueGreenChildSpec(*spec, c)
	if ready {
		rs := decide.ReconciledSpec{Spec: d.Spec}
		rs.Metadata.Metadata.Generation = 1
		d.Status.ObservedGeneration = 1
		d.Status.ReconciliationStatus.LastStableSpec = rs.Encode()
		d.Status.LifecycleState = flinkv1beta1.LifecycleStable
		d.Status.JobStatus = flinkv1beta1.JobStatus{State: flinkv1beta1.JobStatusRunning, JobID: "job-" + string(c)}
	}
	return d
}

func changed(mode flinkv1beta1.UpgradeMode) *flinkv1beta1.FlinkDeploymentSpec {
	t := template(mode)
	t.Image = "flink:1.20.1"
	return t
}

func withSavepoint(spec *flinkv1beta1.FlinkDeploymentSpec, c flinkv1beta1.BlueGreenColor, path string) *flinkv1beta1.FlinkDeploymentSpec {
	s := flinkv1beta1.BlueGreenChildSpec(*spec, c)
	s.Job.InitialSavepointPath = path
	return &s
}

// TestDecide walks the state machine's decisions: each row is one reconcile.
func TestDecide(t *testing.T) {
	sp, cp := template(flinkv1beta1.UpgradeModeSavepoint), changed(flinkv1beta1.UpgradeModeSavepoint)
	pending := bgIn(flinkv1beta1.BlueGreenSavepointingBlue, sp, cp)
	pending.Status.SavepointTriggerID, pending.Status.AbortTimestamp = "t1", now.Add(time.Minute).Format(time.RFC3339)
	expired := pending.DeepCopy()
	expired.Status.AbortTimestamp = now.Add(-time.Second).Format(time.RFC3339)
	toGreen := bgIn(flinkv1beta1.BlueGreenTransitioningToGreen, cp, cp)
	toGreen.Status.AbortTimestamp = now.Add(time.Minute).Format(time.RFC3339)
	readySince := toGreen.DeepCopy()
	readySince.Status.DeploymentReadyTimestamp = now.Add(-time.Second).Format(time.RFC3339)
	abortDue := toGreen.DeepCopy()
	abortDue.Status.AbortTimestamp = now.Add(-time.Second).Format(time.RFC3339)
	suspended := template(flinkv1beta1.UpgradeModeSavepoint)
	suspended.Job.State = flinkv1beta1.JobStateSuspended
	greenSpec := withSavepoint(cp, flinkv1beta1.Green, "file:/sp/savepoint-1")

	type want struct {
		action ActionKind
		color  flinkv1beta1.BlueGreenColor
		state  flinkv1beta1.BlueGreenState
		job    flinkv1beta1.JobStatusState
		spec   *flinkv1beta1.FlinkDeploymentSpec // of a deploy
	}
	cases := map[string]struct {
		bg          *flinkv1beta1.FlinkBlueGreenDeployment
		blue, green *flinkv1beta1.FlinkDeployment
		savepoint   *decide.OperationObservation
		want        want
	}{
		"a new resource deploys blue from the template": {
			bg:   bgIn("", nil, sp),
			want: want{ActDeploy, flinkv1beta1.Blue, flinkv1beta1.BlueGreenTransitioningToBlue, flinkv1beta1.JobStatusReconciling, withSavepoint(sp, flinkv1beta1.Blue, "")},
		},
		"a suspended new resource deploys nothing": {
			bg:   bgIn("", nil, suspended),
			want: want{ActNone, "", flinkv1beta1.BlueGreenInitializingBlue, flinkv1beta1.JobStatusSuspended, nil},
		},
		"active with no change does nothing": {
			bg: bgIn(flinkv1beta1.BlueGreenActiveBlue, sp, sp), blue: childOf(flinkv1beta1.Blue, sp, true),
			want: want{ActNone, "", flinkv1beta1.BlueGreenActiveBlue, flinkv1beta1.JobStatusRunning, nil},
		},
		"a change of a ready blue takes a savepoint of it": {
			bg: bgIn(flinkv1beta1.BlueGreenActiveBlue, sp, cp), blue: childOf(flinkv1beta1.Blue, sp, true),
			want: want{ActTriggerSavepoint, flinkv1beta1.Blue, flinkv1beta1.BlueGreenSavepointingBlue, flinkv1beta1.JobStatusReconciling, nil},
		},
		"a stateless change deploys green at once": {
			bg: bgIn(flinkv1beta1.BlueGreenActiveBlue, template(""), changed("")), blue: childOf(flinkv1beta1.Blue, template(""), true),
			want: want{ActDeploy, flinkv1beta1.Green, flinkv1beta1.BlueGreenTransitioningToGreen, flinkv1beta1.JobStatusReconciling, withSavepoint(changed(""), flinkv1beta1.Green, "")},
		},
		"a change of a blue that is not ready waits, FAILING": {
			bg: bgIn(flinkv1beta1.BlueGreenActiveBlue, sp, cp), blue: childOf(flinkv1beta1.Blue, sp, false),
			want: want{ActNone, "", flinkv1beta1.BlueGreenActiveBlue, flinkv1beta1.JobStatusFailing, nil},
		},
		"a leftover green is deleted before the savepoint": {
			bg: bgIn(flinkv1beta1.BlueGreenActiveBlue, sp, cp), blue: childOf(flinkv1beta1.Blue, sp, true), green: childOf(flinkv1beta1.Green, sp, false),
			want: want{ActDelete, flinkv1beta1.Green, flinkv1beta1.BlueGreenActiveBlue, flinkv1beta1.JobStatusRunning, nil},
		},
		"an ignorable change patches blue in place": {
			bg: bgIn(flinkv1beta1.BlueGreenActiveBlue, sp, template(flinkv1beta1.UpgradeModeStateless)), blue: childOf(flinkv1beta1.Blue, sp, true),
			want: want{ActDeploy, flinkv1beta1.Blue, flinkv1beta1.BlueGreenTransitioningToBlue, flinkv1beta1.JobStatusReconciling, withSavepoint(template(flinkv1beta1.UpgradeModeStateless), flinkv1beta1.Blue, "")},
		},
		"a suspend patches blue in place": {
			bg: bgIn(flinkv1beta1.BlueGreenActiveBlue, sp, suspended), blue: childOf(flinkv1beta1.Blue, sp, true),
			want: want{ActDeploy, flinkv1beta1.Blue, flinkv1beta1.BlueGreenTransitioningToBlue, flinkv1beta1.JobStatusReconciling, withSavepoint(suspended, flinkv1beta1.Blue, "")},
		},
		"a pending savepoint waits": {
			bg: pending, blue: childOf(flinkv1beta1.Blue, sp, true), savepoint: &decide.OperationObservation{},
			want: want{ActNone, "", flinkv1beta1.BlueGreenSavepointingBlue, flinkv1beta1.JobStatusRunning, nil},
		},
		"a completed savepoint deploys green from it": {
			bg: pending, blue: childOf(flinkv1beta1.Blue, sp, true), savepoint: &decide.OperationObservation{Done: true, Location: "file:/sp/savepoint-1"},
			want: want{ActDeploy, flinkv1beta1.Green, flinkv1beta1.BlueGreenTransitioningToGreen, flinkv1beta1.JobStatusReconciling, greenSpec},
		},
		"a green already deployed from that savepoint is not deployed anew": {
			bg: pending, blue: childOf(flinkv1beta1.Blue, sp, true), green: childOf(flinkv1beta1.Green, greenSpec, false),
			savepoint: &decide.OperationObservation{Done: true, Location: "file:/sp/savepoint-1"},
			want:      want{ActDeploy, flinkv1beta1.Green, flinkv1beta1.BlueGreenTransitioningToGreen, flinkv1beta1.JobStatusReconciling, greenSpec},
		},
		"a suspend applied during the savepoint goes to blue, not to a green": {
			bg: func() *flinkv1beta1.FlinkBlueGreenDeployment {
				b := pending.DeepCopy()
				b.Spec.Template.Spec = suspended
				return b
			}(),
			blue: childOf(flinkv1beta1.Blue, sp, true), savepoint: &decide.OperationObservation{Done: true, Location: "file:/sp/savepoint-1"},
			want: want{ActNone, "", flinkv1beta1.BlueGreenActiveBlue, flinkv1beta1.JobStatusRunning, nil},
		},
		"a failed savepoint ends the switch, blue stays active": {
			bg: pending, blue: childOf(flinkv1beta1.Blue, sp, true), savepoint: &decide.OperationObservation{Done: true, Failure: "disk full"},
			want: want{ActNone, "", flinkv1beta1.BlueGreenActiveBlue, flinkv1beta1.JobStatusFailing, nil},
		},
		"a savepoint past the grace period ends the switch": {
			bg: expired, blue: childOf(flinkv1beta1.Blue, sp, true), savepoint: &decide.OperationObservation{},
			want: want{ActNone, "", flinkv1beta1.BlueGreenActiveBlue, flinkv1beta1.JobStatusFailing, nil},
		},
		"a lost savepoint is triggered again": {
			bg: pending, blue: childOf(flinkv1beta1.Blue, sp, true), savepoint: &decide.OperationObservation{Lost: true},
			want: want{ActTriggerSavepoint, flinkv1beta1.Blue, flinkv1beta1.BlueGreenSavepointingBlue, flinkv1beta1.JobStatusReconciling, nil},
		},
		"a green not yet ready is waited for": {
			bg: toGreen, blue: childOf(flinkv1beta1.Blue, sp, true), green: childOf(flinkv1beta1.Green, greenSpec, false),
			want: want{ActNone, "", flinkv1beta1.BlueGreenTransitioningToGreen, flinkv1beta1.JobStatusRunning, nil},
		},
		"a ready green starts the deletion delay": {
			bg: toGreen, blue: childOf(flinkv1beta1.Blue, sp, true), green: childOf(flinkv1beta1.Green, greenSpec, true),
			want: want{ActNone, "", flinkv1beta1.BlueGreenTransitioningToGreen, flinkv1beta1.JobStatusRunning, nil},
		},
		"after the delay blue is deleted and green is active": {
			bg: readySince, blue: childOf(flinkv1beta1.Blue, sp, true), green: childOf(flinkv1beta1.Green, greenSpec, true),
			want: want{ActDelete, flinkv1beta1.Blue, flinkv1beta1.BlueGreenActiveGreen, flinkv1beta1.JobStatusRunning, nil},
		},
		"a green not ready in the grace period is deleted, blue stays": {
			bg: abortDue, blue: childOf(flinkv1beta1.Blue, sp, true), green: childOf(flinkv1beta1.Green, greenSpec, false),
			want: want{ActDelete, flinkv1beta1.Green, flinkv1beta1.BlueGreenActiveBlue, flinkv1beta1.JobStatusFailing, nil},
		},
		"the only child not ready in the grace period keeps running": {
			bg: func() *flinkv1beta1.FlinkBlueGreenDeployment {
				b := abortDue.DeepCopy()
				b.Status.BlueGreenState = flinkv1beta1.BlueGreenTransitioningToBlue
				return b
			}(),
			blue: childOf(flinkv1beta1.Blue, cp, false),
			want: want{ActNone, "", flinkv1beta1.BlueGreenTransitioningToBlue, flinkv1beta1.JobStatusFailing, nil},
		},
		"a change during the switch patches green": {
			bg: func() *flinkv1beta1.FlinkBlueGreenDeployment {
				b := toGreen.DeepCopy()
				b.Spec.Template.Spec = template(flinkv1beta1.UpgradeModeSavepoint)
				return b
			}(),
			blue: childOf(flinkv1beta1.Blue, sp, true), green: childOf(flinkv1beta1.Green, greenSpec, false),
			want: want{ActDeploy, flinkv1beta1.Green, flinkv1beta1.BlueGreenTransitioningToGreen, flinkv1beta1.JobStatusReconciling, withSavepoint(sp, flinkv1beta1.Green, "file:/sp/savepoint-1")},
		},
		"a child of another owner is never touched": {
			bg:   bgIn("", nil, sp),
			want: want{ActNone, "", flinkv1beta1.BlueGreenInitializingBlue, flinkv1beta1.JobStatusFailing, nil},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := Input{Resource: tc.bg, Blue: tc.blue, Green: tc.green, Savepoint: tc.savepoint, Now: now, ReconcileInterval: time.Minute}
			if name == "a child of another owner is never touched" {
				in.Foreign = "bg-blue"
			}
			res := Decide(in)
			got := want{res.Action.Kind, res.Action.Color, res.Status.BlueGreenState, res.Status.JobStatus.State, res.Action.Spec}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("(-want +got):\n%s\nerror: %s", diff, res.Status.Error)
			}
			if res.RequeueAfter <= 0 {
				t.Errorf("RequeueAfter %s: every decision looks again", res.RequeueAfter)
			}
		})
	}
}

// TestTriggerIDFollowsTheGeneration: a trigger repeated for the same generation (after a lost
// status write) names the same savepoint; a later generation, even one back to an earlier
// spec, names a new one (Flink would answer a reused id with the old savepoint).
func TestTriggerIDFollowsTheGeneration(t *testing.T) {
	sp, cp := template(flinkv1beta1.UpgradeModeSavepoint), changed(flinkv1beta1.UpgradeModeSavepoint)
	trigger := func(gen int64) string {
		bg := bgIn(flinkv1beta1.BlueGreenActiveBlue, sp, cp)
		bg.Generation = gen
		res := Decide(Input{Resource: bg, Blue: childOf(flinkv1beta1.Blue, sp, true), Now: now, ReconcileInterval: time.Minute})
		if res.Action.Kind != ActTriggerSavepoint {
			t.Fatalf("action %s, want a savepoint", res.Action.Kind)
		}
		return res.Action.TriggerID
	}
	if a, b := trigger(2), trigger(2); a != b || len(a) != 32 {
		t.Errorf("generation 2 twice: %q and %q", a, b)
	}
	if a, b := trigger(2), trigger(4); a == b {
		t.Errorf("generations 2 and 4 share trigger id %q", a)
	}
}

// TestStatusTimestampOnlyOnChange: a reconcile that changes nothing writes nothing.
func TestStatusTimestampOnlyOnChange(t *testing.T) {
	sp := template(flinkv1beta1.UpgradeModeSavepoint)
	bg := bgIn(flinkv1beta1.BlueGreenActiveBlue, sp, sp)
	res := Decide(Input{Resource: bg, Blue: childOf(flinkv1beta1.Blue, sp, true), Now: now, ReconcileInterval: time.Minute})
	if diff := cmp.Diff(bg.Status, res.Status); diff != "" {
		t.Errorf("status changed (-before +after):\n%s", diff)
	}
}
