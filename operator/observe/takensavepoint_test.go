package observe

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestNewestTakenSavepoint: only a savepoint a snapshot triggered and completed counts, the
// newest by its result time; not an existing path a snapshot records, a job's record, a
// checkpoint, one being deleted, one not completed, or one of an earlier job of the same name.
func TestNewestTakenSavepoint(t *testing.T) {
	snap := func(name, path, at string, mods ...func(*flinkv1beta1.FlinkStateSnapshot)) flinkv1beta1.FlinkStateSnapshot {
		s := flinkv1beta1.FlinkStateSnapshot{
			ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(time.Date(2026, 11, 26, 8, 30, 0, 0, time.UTC))},
			Spec:       flinkv1beta1.FlinkStateSnapshotSpec{Savepoint: &flinkv1beta1.SavepointSpec{}},
			Status:     flinkv1beta1.FlinkStateSnapshotStatus{State: flinkv1beta1.SnapshotCompleted, Path: path, ResultTimestamp: at},
		}
		for _, m := range mods {
			m(&s)
		}
		return s
	}
	later := "2026-11-26T10:00:00Z"
	jobCreated := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	got := NewestTakenSavepoint([]flinkv1beta1.FlinkStateSnapshot{
		snap("old", "s3://b/old", "2026-11-26T09:00:00.500Z"),
		snap("taken", "s3://b/taken", "2026-11-26T09:30:00Z"),
		snap("existing", "s3://elsewhere", later, func(s *flinkv1beta1.FlinkStateSnapshot) { s.Spec.Savepoint.AlreadyExists = true }),
		snap("record", "s3://b/rec", later, func(s *flinkv1beta1.FlinkStateSnapshot) {
			s.OwnerReferences = []metav1.OwnerReference{{Kind: "FlinkDeployment", Name: "job", UID: "u", Controller: ptr.To(true)}}
		}),
		snap("checkpoint", "s3://b/chk", later, func(s *flinkv1beta1.FlinkStateSnapshot) {
			s.Spec.Savepoint, s.Spec.Checkpoint = nil, &flinkv1beta1.CheckpointSpec{}
		}),
		snap("going", "s3://b/going", later, func(s *flinkv1beta1.FlinkStateSnapshot) { s.DeletionTimestamp = &metav1.Time{} }),
		snap("pending", "", later, func(s *flinkv1beta1.FlinkStateSnapshot) { s.Status.State = flinkv1beta1.SnapshotInProgress }),
		snap("earlier-job", "s3://b/earlier", later, func(s *flinkv1beta1.FlinkStateSnapshot) {
			s.CreationTimestamp = metav1.NewTime(jobCreated.Add(-time.Hour)) // of a job of the same name, deleted since
		}),
	}, jobCreated)
	if got == nil || got.Name != "taken" || got.Path != "s3://b/taken" {
		t.Fatalf("newest taken savepoint %+v, want snapshot taken", got)
	}
}
