package snapshot

import (
	"testing"
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

// TestDecideDeletion: what a deleted snapshot waits for, and when its savepoint is disposed of.
func TestDecideDeletion(t *testing.T) {
	stamp := Timestamp(now)
	for name, tc := range map[string]struct {
		s    *flinkv1beta1.FlinkStateSnapshot
		obs  Observation
		want outcome
	}{
		"deleted checkpoint goes": {
			s: savepointOf(checkpoint, inState(flinkv1beta1.SnapshotCompleted), deleted), obs: Observation{Target: running},
			want: outcome{Status: savepointOf(inState(flinkv1beta1.SnapshotCompleted)).Status, Remove: true},
		},
		"deleted completed savepoint is disposed of": {
			s: savepointOf(inState(flinkv1beta1.SnapshotCompleted), deleted), obs: Observation{Target: running},
			want: outcome{
				Action: Action{Kind: ActDispose, Path: "file:///sp/sp-1"}, Status: savepointOf(inState(flinkv1beta1.SnapshotCompleted)).Status,
				Reasons: []string{"SnapshotDisposed"}, Remove: true,
			},
		},
		"deleted savepoint kept on request": {
			s:    savepointOf(inState(flinkv1beta1.SnapshotCompleted), deleted, func(s *flinkv1beta1.FlinkStateSnapshot) { s.Spec.Savepoint.DisposeOnDelete = new(bool) }),
			obs:  Observation{Target: running},
			want: outcome{Status: savepointOf(inState(flinkv1beta1.SnapshotCompleted)).Status, Remove: true},
		},
		"deleted savepoint a job would restore from stays": {
			s: savepointOf(inState(flinkv1beta1.SnapshotCompleted), deleted), obs: Observation{Target: running, RestoredBy: "FlinkDeployment job (its upgrade savepoint)"},
			want: outcome{
				Status: savepointOf(inState(flinkv1beta1.SnapshotCompleted, func(st *flinkv1beta1.FlinkStateSnapshotStatus) {
					st.Error = "Not disposing of savepoint file:///sp/sp-1 while FlinkDeployment job (its upgrade savepoint) would restore from it (set spec.savepoint.disposeOnDelete to false to delete the snapshot and keep the savepoint)"
				})).Status,
				Reasons: []string{"CleanupFailed"}, Requeue: interval,
			},
		},
		"deleted savepoint of a stopped job stays": {
			s: savepointOf(inState(flinkv1beta1.SnapshotCompleted), deleted), obs: Observation{Target: Target{Found: true, JobState: "SUSPENDED"}},
			want: outcome{
				Status: savepointOf(inState(flinkv1beta1.SnapshotCompleted, func(st *flinkv1beta1.FlinkStateSnapshotStatus) {
					st.Error = "Cannot dispose of snapshot because referenced Flink job is not running! (set spec.savepoint.disposeOnDelete to false to delete the snapshot and keep the savepoint)"
				})).Status,
				Reasons: []string{"CleanupFailed"}, Requeue: interval,
			},
		},
		"deleted while in progress waits": {
			s: savepointOf(inState(flinkv1beta1.SnapshotInProgress), deleted), obs: Observation{Target: running, Operation: &decide.OperationObservation{}},
			want: outcome{Status: savepointOf(inState(flinkv1beta1.SnapshotInProgress)).Status, Requeue: progress},
		},
		"deleted while in progress: completes, recorded before any disposal": {
			s:   savepointOf(inState(flinkv1beta1.SnapshotInProgress), deleted),
			obs: Observation{Target: running, Operation: &decide.OperationObservation{Done: true, Location: "file:///sp/sp-2"}},
			want: outcome{
				Status:  flinkv1beta1.FlinkStateSnapshotStatus{State: flinkv1beta1.SnapshotCompleted, TriggerID: "t0", TriggerTimestamp: Timestamp(now.Add(-time.Minute)), Path: "file:///sp/sp-2", ResultTimestamp: stamp},
				Reasons: []string{"SnapshotCompleted"}, Requeue: time.Millisecond,
			},
		},
		"deleted while in progress: the attempt fails, nothing to dispose of": {
			s:   savepointOf(inState(flinkv1beta1.SnapshotInProgress), deleted),
			obs: Observation{Target: running, Operation: &decide.OperationObservation{Done: true, Failure: "boom"}},
			want: outcome{
				Status:  flinkv1beta1.FlinkStateSnapshotStatus{State: flinkv1beta1.SnapshotTriggerPending, TriggerID: "t0", TriggerTimestamp: Timestamp(now.Add(-time.Minute)), Failures: 1, Error: "boom", ResultTimestamp: stamp},
				Reasons: []string{"SavepointError"}, Requeue: 10 * time.Second, Remove: true,
			},
		},
		"deleted in progress without its job reference (removed): abandoned, no panic": {
			s: savepointOf(inState(flinkv1beta1.SnapshotInProgress), deleted, func(s *flinkv1beta1.FlinkStateSnapshot) { s.Spec.JobReference = nil }),
			want: outcome{
				Status:  flinkv1beta1.FlinkStateSnapshotStatus{State: flinkv1beta1.SnapshotAbandoned, TriggerID: "t0", TriggerTimestamp: Timestamp(now.Add(-time.Minute)), ResultTimestamp: stamp, Error: "Secondary resource  () for savepoint sp was not found"},
				Reasons: []string{"SnapshotAbandoned"}, Requeue: time.Millisecond,
			},
		},
	} {
		t.Run(name, func(t *testing.T) { checkDecide(t, tc.s, tc.obs, tc.want) })
	}
}
