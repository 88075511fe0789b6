package observe

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

// takenSavepoint reads, through lister and r, the newest savepoint a FlinkStateSnapshot took
// of the job of kind named name in namespace ns (decide.TakenSavepoint; nil when none).
func takenSavepoint(ctx context.Context, lister act.SnapshotLister, r client.Reader, ns string, kind flinkv1beta1.JobKind, name string) (*decide.TakenSavepoint, error) {
	snaps, err := lister.List(ctx, r, ns, kind, name)
	if err != nil {
		return nil, err
	}
	return NewestTakenSavepoint(snaps), nil
}

// NewestTakenSavepoint is the newest savepoint of snaps that a FlinkStateSnapshot took: a
// COMPLETED savepoint with its path and result time, triggered by the snapshot (not an
// existing one it records, whose path nobody checked), not a job's record of its own
// savepoint (the job knows those), and not being deleted.
func NewestTakenSavepoint(snaps []flinkv1beta1.FlinkStateSnapshot) *decide.TakenSavepoint {
	var newest *decide.TakenSavepoint
	for i := range snaps {
		s := &snaps[i]
		st := s.Status
		if !s.Spec.IsSavepoint() || s.Spec.AlreadyExists() || metav1.GetControllerOf(s) != nil || s.DeletionTimestamp != nil ||
			st.State != flinkv1beta1.SnapshotCompleted || st.Path == "" {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, st.ResultTimestamp)
		if err != nil {
			continue
		}
		if newest == nil || at.UnixMilli() > newest.Time {
			newest = &decide.TakenSavepoint{Name: s.Name, Path: st.Path, Time: at.UnixMilli(), Format: s.Spec.Savepoint.EffectiveFormatType()}
		}
	}
	return newest
}
