package bluegreen

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

// TestIngressFollowsTheActiveChild: the resource's Ingress is created for the active child,
// moved to the new child before the old one is deleted, and removed when no longer asked for.
func TestIngressFollowsTheActiveChild(t *testing.T) {
	sp := template(flinkv1beta1.UpgradeModeSavepoint)
	greenSpec := withSavepoint(sp, flinkv1beta1.Green, "file:/sp/savepoint-1")
	ingress := &flinkv1beta1.IngressSpec{Template: "{{name}}.example.com"}
	onBlue := &IngressSeen{Hash: IngressHash(ingress, "bg-blue")}
	onGreen := &IngressSeen{Hash: IngressHash(ingress, "bg-green")}
	active := bgIn(flinkv1beta1.BlueGreenActiveBlue, sp, sp)
	active.Spec.Ingress = ingress
	cutOver := bgIn(flinkv1beta1.BlueGreenTransitioningToGreen, sp, sp)
	cutOver.Spec.Ingress = ingress
	cutOver.Status.DeploymentReadyTimestamp = now.Add(-time.Minute).Format(time.RFC3339)
	dropped := active.DeepCopy()
	dropped.Spec.Ingress = nil

	type want struct {
		Action ActionKind
		Color  flinkv1beta1.BlueGreenColor
		State  flinkv1beta1.BlueGreenState
	}
	cases := map[string]struct {
		bg      *flinkv1beta1.FlinkBlueGreenDeployment
		ingress *IngressSeen
		want    want
	}{
		"asked for, none yet":        {active, nil, want{ActApplyIngress, flinkv1beta1.Blue, flinkv1beta1.BlueGreenActiveBlue}},
		"in place":                   {active, onBlue, want{ActNone, "", flinkv1beta1.BlueGreenActiveBlue}},
		"another's is left alone":    {active, &IngressSeen{Foreign: true}, want{ActNone, "", flinkv1beta1.BlueGreenActiveBlue}},
		"no longer asked for":        {dropped, onBlue, want{ActDeleteIngress, "", flinkv1beta1.BlueGreenActiveBlue}},
		"cut-over moves it to green": {cutOver, onBlue, want{ActApplyIngress, flinkv1beta1.Green, flinkv1beta1.BlueGreenTransitioningToGreen}},
		"then blue is deleted":       {cutOver, onGreen, want{ActDelete, flinkv1beta1.Blue, flinkv1beta1.BlueGreenActiveGreen}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res := Decide(Input{
				Resource: tc.bg, Blue: childOf(flinkv1beta1.Blue, sp, true), Green: childOf(flinkv1beta1.Green, greenSpec, true),
				Ingress: tc.ingress, Now: now, ReconcileInterval: time.Minute,
			})
			if tc.bg.Status.BlueGreenState == flinkv1beta1.BlueGreenActiveBlue {
				res = Decide(Input{Resource: tc.bg, Blue: childOf(flinkv1beta1.Blue, sp, true), Ingress: tc.ingress, Now: now, ReconcileInterval: time.Minute})
			}
			got := want{res.Action.Kind, res.Action.Color, res.Status.BlueGreenState}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestReviewedPaths covers the paths a review found wrong before: each row is one reconcile.
func TestReviewedPaths(t *testing.T) {
	sp, cp := template(flinkv1beta1.UpgradeModeSavepoint), changed(flinkv1beta1.UpgradeModeSavepoint)
	nonce := changed(flinkv1beta1.UpgradeModeSavepoint)
	nonce.Job.SavepointTriggerNonce = ptrTo(int64(7))
	suspendedCp := changed(flinkv1beta1.UpgradeModeSavepoint)
	suspendedCp.Job.State = flinkv1beta1.JobStateSuspended
	failedSwitch := bgIn(flinkv1beta1.BlueGreenActiveBlue, cp, nonce) // cp failed; blue runs sp
	failedSwitch.Status.JobStatus.State = flinkv1beta1.JobStatusFailing
	onlyPatched := bgIn(flinkv1beta1.BlueGreenTransitioningToBlue, sp, cp)
	onlyPatched.Status.AbortTimestamp = now.Add(time.Minute).Format(time.RFC3339)
	onlyStuck := bgIn(flinkv1beta1.BlueGreenTransitioningToBlue, cp, suspendedCp)
	onlyStuck.Status.AbortTimestamp = now.Add(-time.Minute).Format(time.RFC3339)
	abort := bgIn(flinkv1beta1.BlueGreenTransitioningToGreen, cp, cp)
	abort.Status.AbortTimestamp = now.Add(-time.Second).Format(time.RFC3339)
	abort.Spec.Ingress = &flinkv1beta1.IngressSpec{Template: "{{name}}.example.com"}
	greenSpec := withSavepoint(cp, flinkv1beta1.Green, "file:/sp/savepoint-1")

	type want struct {
		Action ActionKind
		Color  flinkv1beta1.BlueGreenColor
		State  flinkv1beta1.BlueGreenState
	}
	cases := map[string]struct {
		in   Input
		want want
	}{
		"after a failed switch, a nonce change switches (blue never gets the failed spec)": {
			Input{Resource: failedSwitch, Blue: childOf(flinkv1beta1.Blue, sp, true)},
			want{ActTriggerSavepoint, flinkv1beta1.Blue, flinkv1beta1.BlueGreenSavepointingBlue},
		},
		"an idle resource deletes the leftover green of a lost status write": {
			Input{Resource: bgIn(flinkv1beta1.BlueGreenActiveBlue, sp, sp), Blue: childOf(flinkv1beta1.Blue, sp, true), Green: childOf(flinkv1beta1.Green, greenSpec, true)},
			want{ActDelete, flinkv1beta1.Green, flinkv1beta1.BlueGreenActiveBlue},
		},
		"a ready leftover is kept while the active child is not ready": {
			Input{Resource: bgIn(flinkv1beta1.BlueGreenActiveBlue, sp, sp), Blue: childOf(flinkv1beta1.Blue, sp, false), Green: childOf(flinkv1beta1.Green, greenSpec, true)},
			want{ActNone, "", flinkv1beta1.BlueGreenActiveBlue},
		},
		"no child left: deploy again": {
			Input{Resource: bgIn(flinkv1beta1.BlueGreenActiveGreen, sp, sp)},
			want{ActNone, "", flinkv1beta1.BlueGreenInitializingBlue},
		},
		"a switch-type change of a ready only child ends the patch first": {
			Input{Resource: onlyPatched, Blue: childOf(flinkv1beta1.Blue, sp, true)},
			want{ActNone, "", flinkv1beta1.BlueGreenActiveBlue},
		},
		"a suspend reaches an only child that is not ready": {
			Input{Resource: onlyStuck, Blue: childOf(flinkv1beta1.Blue, cp, false)},
			want{ActDeploy, flinkv1beta1.Blue, flinkv1beta1.BlueGreenTransitioningToBlue},
		},
		"an abort moves the Ingress back before deleting green": {
			Input{
				Resource: abort, Blue: childOf(flinkv1beta1.Blue, sp, true), Green: childOf(flinkv1beta1.Green, greenSpec, false),
				Ingress: &IngressSeen{Hash: IngressHash(abort.Spec.Ingress, "bg-green")},
			},
			want{ActApplyIngress, flinkv1beta1.Blue, flinkv1beta1.BlueGreenTransitioningToGreen},
		},
		"a savepoint after a failed switch and a nonce change goes to green, not back": {
			Input{Resource: func() *flinkv1beta1.FlinkBlueGreenDeployment {
				b := failedSwitch.DeepCopy()
				b.Status.BlueGreenState, b.Status.SavepointTriggerID = flinkv1beta1.BlueGreenSavepointingBlue, "t"
				b.Status.AbortTimestamp = now.Add(time.Minute).Format(time.RFC3339)
				return b
			}(), Blue: childOf(flinkv1beta1.Blue, sp, true), Savepoint: &decide.OperationObservation{Done: true, Location: "file:/sp/savepoint-2"}},
			want{ActDeploy, flinkv1beta1.Green, flinkv1beta1.BlueGreenTransitioningToGreen},
		},
		"a blue taken up after a lost status write in INITIALIZING_BLUE": {
			Input{Resource: bgIn("", nil, sp), Blue: childOf(flinkv1beta1.Blue, sp, false)},
			want{ActDeploy, flinkv1beta1.Blue, flinkv1beta1.BlueGreenTransitioningToBlue},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tc.in.Now, tc.in.ReconcileInterval = now, time.Minute
			res := Decide(tc.in)
			got := want{res.Action.Kind, res.Action.Color, res.Status.BlueGreenState}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\nerror: %s", diff, res.Status.Error)
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }
