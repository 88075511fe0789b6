package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/types"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

func TestRecorder(t *testing.T) {
	reg := prometheus.NewRegistry()
	r, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := types.NamespacedName{Namespace: "ns", Name: "a"}
	b := types.NamespacedName{Namespace: "ns", Name: "b"}
	fd := flinkv1beta1.JobKindDeployment
	r.Observe(fd, a, ResourceState{Lifecycle: "UPGRADING", JobManager: "DEPLOYING"}, t0)
	r.Observe(fd, b, ResourceState{Lifecycle: "UPGRADING", JobManager: "DEPLOYING"}, t0)
	r.Observe(fd, a, ResourceState{Lifecycle: "STABLE", JobManager: "READY"}, t0.Add(90*time.Second))
	r.Observe(fd, a, ResourceState{Lifecycle: "STABLE", JobManager: "READY"}, t0.Add(2*time.Minute)) // no change: nothing moves
	r.Event("SavepointCompleted")
	r.Event("SavepointError")
	r.Event("SavepointCompleted")
	r.Event("Deploy") // not a snapshot outcome
	r.Event("BlueGreenActive")
	r.Event("BlueGreenAborted")
	r.Event("BlueGreenActive")
	r.ReconcileError("Deploy")
	r.Forget(fd, b)

	want := `
# HELP flinkop_resources FlinkDeployments per namespace and lifecycle state.
# TYPE flinkop_resources gauge
flinkop_resources{lifecycle_state="STABLE",namespace="ns"} 1
flinkop_resources{lifecycle_state="UPGRADING",namespace="ns"} 0
# HELP flinkop_snapshots_total Savepoints and checkpoints the operator followed to the end, by kind and result.
# TYPE flinkop_snapshots_total counter
flinkop_snapshots_total{kind="savepoint",result="failure"} 1
flinkop_snapshots_total{kind="savepoint",result="success"} 2
# HELP flinkop_reconcile_errors_total Reconciles that failed, by the step that failed.
# TYPE flinkop_reconcile_errors_total counter
flinkop_reconcile_errors_total{step="Deploy"} 1
# HELP flinkop_bluegreen_events_total What FlinkBlueGreenDeployments did, by event (Deploying, Savepoint, Active, Aborted, Failed, Suspended, Ingress).
# TYPE flinkop_bluegreen_events_total counter
flinkop_bluegreen_events_total{event="Aborted"} 1
flinkop_bluegreen_events_total{event="Active"} 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), ResourcesName, SnapshotsName, ReconcileErrorsName, BlueGreenName); err != nil {
		t.Error(err)
	}
	// One transition, UPGRADING → STABLE after 90s.
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sums []float64
	for _, f := range families {
		if f.GetName() == TransitionName {
			for _, m := range f.GetMetric() {
				sums = append(sums, m.GetHistogram().GetSampleSum())
			}
		}
	}
	if len(sums) != 1 || sums[0] != 90 {
		t.Errorf("transition durations %v, want one of 90s", sums)
	}
	var nilRecorder *Recorder
	nilRecorder.Observe(fd, a, ResourceState{Lifecycle: "STABLE"}, t0) // a nil recorder records nothing and does not panic
}
