package snapshot

import (
	"fmt"
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

// delete lets a deleted snapshot go, disposing of its savepoint first when it asks for that
// (Apache's order): a checkpoint, a savepoint not to dispose of, one without a job reference
// or one that never completed goes at once; one in progress first finishes; a completed one is
// disposed of through its job's JobManager, which must run, only when its path lies below a
// directory its namespace may use (Input.Paths), and never while a job would restore from
// it. A refused disposal keeps the finalizer: nothing is lost, and the snapshot says why.
func (r *run) delete() {
	s, st := r.s, &r.res.Status
	if st.State == flinkv1beta1.SnapshotInProgress {
		r.inProgress()
		switch st.State {
		case flinkv1beta1.SnapshotInProgress:
			return // a savepoint being written is never disposed of
		case flinkv1beta1.SnapshotCompleted, flinkv1beta1.SnapshotAbandoned:
			// Recorded first: the disposal is judged on the next reconcile, whose observation
			// asks whether a job would restore from what just completed.
			r.res.RequeueAfter = time.Millisecond
			return
		}
	}
	sp := s.Spec.Savepoint
	if sp == nil || !sp.EffectiveDisposeOnDelete() || s.Spec.JobReference == nil || s.Spec.JobReference.Name == "" ||
		st.State != flinkv1beta1.SnapshotCompleted || st.Path == "" {
		r.res.RemoveFinalizer = true
		return
	}
	t, o := r.in.Observed.Target, r.in.Observed
	keep := " (set spec.savepoint.disposeOnDelete to false to delete the snapshot and keep the savepoint)"
	if why := r.in.Paths.refusal(s.Namespace, st.Path, true); why != "" {
		r.cleanupFailed("Not disposing of the savepoint: " + why + keep)
		return
	}
	path, _ := CanonicalPath(st.Path) // refusal found it has one
	switch {
	case !t.Found:
		r.cleanupFailed("Cannot dispose of snapshot because referenced Flink job cannot be found!" + keep)
	case t.JobState != string(flinkv1beta1.JobStatusRunning):
		r.cleanupFailed("Cannot dispose of snapshot because referenced Flink job is not running!" + keep)
	case o.RestoredBy != "":
		r.cleanupFailed(fmt.Sprintf("Not disposing of savepoint %s while %s would restore from it%s", st.Path, o.RestoredBy, keep))
	default:
		// The canonical spelling: what was judged is what is disposed of.
		r.act(Action{Kind: ActDispose, Path: path})
		r.res.RemoveFinalizer = true
		r.event(decide.Normal, "SnapshotDisposed", "Disposing of savepoint "+path)
	}
}

// cleanupFailed records why a deleted snapshot stays, and looks again later.
func (r *run) cleanupFailed(msg string) {
	if r.res.Status.Error != msg {
		r.event(decide.Warning, "CleanupFailed", msg)
	}
	r.res.Status.Error = msg
	r.res.RequeueAfter = r.in.ReconcileInterval
}
