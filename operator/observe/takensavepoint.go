package observe

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

// takenSavepoint reads, through lister and r, the newest savepoint a FlinkStateSnapshot took
// of job (of kind; decide.TakenSavepoint, nil when none). A candidate newer than the job's
// last savepoint is read again past the cache (live; nil: not) before it counts: a snapshot
// being deleted may be disposed of at once, and the cache may not show the deletion yet.
func takenSavepoint(ctx context.Context, lister act.SnapshotLister, r, live client.Reader, job client.Object, kind flinkv1beta1.JobKind, js *flinkv1beta1.JobStatus) (*decide.TakenSavepoint, error) {
	snaps, err := lister.List(ctx, r, job.GetNamespace(), kind, job.GetName())
	if err != nil {
		return nil, err
	}
	t := NewestTakenSavepoint(snaps, job.GetCreationTimestamp().Time)
	if t == nil || live == nil {
		return t, nil
	}
	if !t.NewerThanLast(js) {
		return t, nil // nothing to adopt, nothing to confirm
	}
	var s flinkv1beta1.FlinkStateSnapshot
	if err := live.Get(ctx, client.ObjectKey{Namespace: job.GetNamespace(), Name: t.Name}, &s); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("get FlinkStateSnapshot %s: %w", t.Name, err)
	}
	if s.DeletionTimestamp != nil || s.Status.Path != t.Path {
		return nil, nil
	}
	return t, nil
}

// NewestTakenSavepoint is the newest savepoint of snaps that a FlinkStateSnapshot took of a
// job created at jobCreated: a COMPLETED savepoint with its path and result time, triggered by
// the snapshot (not an existing one it records, whose path nobody checked), not a job's
// record of its own savepoint (the job knows those), not being deleted, and not created before
// the job (a snapshot of an earlier job of the same name).
func NewestTakenSavepoint(snaps []flinkv1beta1.FlinkStateSnapshot, jobCreated time.Time) *decide.TakenSavepoint {
	var newest *decide.TakenSavepoint
	for i := range snaps {
		s := &snaps[i]
		st := s.Status
		if !s.Spec.IsSavepoint() || s.Spec.AlreadyExists() || metav1.GetControllerOf(s) != nil || s.DeletionTimestamp != nil ||
			st.State != flinkv1beta1.SnapshotCompleted || st.Path == "" || s.CreationTimestamp.Time.Before(jobCreated) {
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

// steady reports whether a job is where decide adopts a taken savepoint: not being deleted,
// deployed, its job RUNNING (elsewhere the snapshots need not be read).
func steady(deleted *metav1.Time, rs *flinkv1beta1.ReconciliationStatus, js *flinkv1beta1.JobStatus) bool {
	return deleted == nil && rs.State == flinkv1beta1.ReconciliationDeployed && js.State == flinkv1beta1.JobStatusRunning
}
