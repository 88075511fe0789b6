package decide

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestReadyReasonNamesTheError: while status.error is set, the Ready condition is false and its
// reason is the error's (the reason of its Warning Event), not the lifecycle state; without
// an error it is the lifecycle state.
func TestReadyReasonNamesTheError(t *testing.T) {
	for name, tc := range map[string]struct {
		d          *flinkv1beta1.FlinkDeployment
		observed   Observation
		wantStatus metav1.ConditionStatus
		wantReason string
	}{
		"stable": {
			d: deployed(sp), observed: cluster(1, "RUNNING"), wantStatus: metav1.ConditionTrue, wantReason: string(flinkv1beta1.LifecycleStable),
		},
		"an invalid spec": {
			d: fresh(func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.JarURI = "" }), wantStatus: metav1.ConditionFalse, wantReason: "ValidationError",
		},
		"a failed job": {
			d: deployed(sp), observed: cluster(1, "FAILED"), wantStatus: metav1.ConditionFalse, wantReason: "JobFailed",
		},
	} {
		t.Run(name, func(t *testing.T) {
			got := Decide(input(tc.d, tc.observed))
			ready := meta.FindStatusCondition(got.Status.Conditions, "Ready")
			if ready == nil {
				t.Fatal("no Ready condition")
			}
			if ready.Status != tc.wantStatus || ready.Reason != tc.wantReason {
				t.Errorf("Ready %s, reason %s (message %q); want %s, %s", ready.Status, ready.Reason, ready.Message, tc.wantStatus, tc.wantReason)
			}
			if tc.wantStatus == metav1.ConditionFalse && ready.Message != flinkv1beta1.ErrorMessage(got.Status.Error) {
				t.Errorf("Ready message %q, want status.error %q", ready.Message, flinkv1beta1.ErrorMessage(got.Status.Error))
			}
		})
	}
}

// TestFailReady: an error the controller sets after the decision names itself in Ready; once
// stored, the next reconcile computes the same condition (its transition time kept, though
// the decision first set Ready true), so the status is not rewritten every reconcile.
func TestFailReady(t *testing.T) {
	stable := flinkv1beta1.CommonStatus{LifecycleState: flinkv1beta1.LifecycleStable}
	SetConditions(&stable, 3, now, "fine", "") // the decision, which does not see the error
	st := stable
	st.Error = "bad options"
	FailReady(&st, nil, 3, now, "InvalidOptions")
	want := metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "InvalidOptions", Message: "bad options", ObservedGeneration: 3, LastTransitionTime: metav1.NewTime(now)}
	if diff := cmp.Diff(want, *meta.FindStatusCondition(st.Conditions, "Ready")); diff != "" {
		t.Errorf("Ready (-want +got):\n%s", diff)
	}

	stored := st.Conditions
	next := flinkv1beta1.CommonStatus{LifecycleState: flinkv1beta1.LifecycleStable}
	SetConditions(&next, 3, now.Add(time.Minute), "fine", "")
	next.Error = "bad options"
	FailReady(&next, stored, 3, now.Add(time.Minute), "InvalidOptions")
	if diff := cmp.Diff(stored, next.Conditions, cmpopts.IgnoreFields(metav1.Condition{}, "LastTransitionTime"),
		cmpopts.SortSlices(func(a, b metav1.Condition) bool { return a.Type < b.Type })); diff != "" {
		t.Errorf("the next reconcile's conditions differ (-stored +next):\n%s", diff)
	}
	if got := meta.FindStatusCondition(next.Conditions, "Ready").LastTransitionTime; !got.Equal(&want.LastTransitionTime) {
		t.Errorf("Ready's transition time %v, want the stored %v: the status would be rewritten every reconcile", got, want.LastTransitionTime)
	}
}
