package snapshot

import (
	"cmp"
	"fmt"
	"maps"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

// Decide chooses the next step of a snapshot.
func Decide(in Input) Result {
	s := in.Resource
	st := s.Status
	if st.State == "" {
		st.State = flinkv1beta1.SnapshotTriggerPending
	}
	r := &run{in: in, s: s, res: Result{Status: st}}
	if s.DeletionTimestamp != nil {
		r.delete()
		return r.res
	}
	switch r.res.Status.State {
	case flinkv1beta1.SnapshotTriggerPending:
		r.pending()
	case flinkv1beta1.SnapshotInProgress:
		r.inProgress()
	}
	r.labels()
	return r.res
}

// run is one decision in the making.
type run struct {
	in  Input
	s   *flinkv1beta1.FlinkStateSnapshot
	res Result
}

func (r *run) event(t decide.EventType, reason, msg string) {
	r.res.Events = append(r.res.Events, decide.Event{Type: t, Reason: reason, Message: msg})
}

// what is "savepoint" or "checkpoint"; errorReason the Warning reason of its failures.
func (r *run) what() (what, errorReason string) {
	if r.s.Spec.IsSavepoint() {
		return "savepoint", "SavepointError"
	}
	return "checkpoint", "CheckpointError"
}

// pending triggers the snapshot, or records an existing savepoint, or waits.
func (r *run) pending() {
	s, st, t := r.s, &r.res.Status, r.in.Observed.Target
	if errs := s.Validate(); len(errs) > 0 {
		r.invalid(errs.ToAggregate().Error())
		return
	}
	if why := r.pathRefused(); why != "" {
		r.invalid(why)
		return
	}
	if s.Spec.AlreadyExists() {
		now := Timestamp(r.in.Now)
		*st = flinkv1beta1.FlinkStateSnapshotStatus{
			State: flinkv1beta1.SnapshotCompleted, Path: s.Spec.Savepoint.Path, TriggerTimestamp: now, ResultTimestamp: now,
			Failures: st.Failures,
		}
		if metav1.GetControllerOf(s) == nil { // a job's record: its job's SavepointCompleted told
			r.event(decide.Normal, "SnapshotCompleted", "Recorded the existing savepoint "+st.Path)
		}
		return
	}
	if !t.Found {
		r.invalid(fmt.Sprintf("Target for snapshot %s/%s was not found", s.Namespace, s.Spec.JobReference.Name))
		return
	}
	if wait := r.retryWait(); wait > 0 {
		r.res.RequeueAfter = wait
		return
	}
	if r.abandonIfNotRunning() {
		return
	}
	id := decide.TriggerID(string(s.UID), "snapshot", int64(st.Failures))
	what, _ := r.what()
	a := Action{JobID: t.JobID, TriggerID: id}
	if sp := s.Spec.Savepoint; sp != nil {
		a.Kind, a.TargetDirectory, a.FormatType = ActTriggerSavepoint, cmp.Or(sp.Path, t.SavepointDir), string(sp.EffectiveFormatType())
		if a.TargetDirectory == "" {
			r.fail("Either the savepoint path in the spec or configuration " + flinkv1beta1.ConfigSavepointsDirV2 + " in the Flink resource has to be supplied")
			return
		}
	} else {
		a.Kind = ActTriggerCheckpoint
		if !checkpointsSupported(t.FlinkVersion) {
			r.fail("Manual checkpoint triggering is not supported for this Flink job (requires Flink 1.17+)")
			return
		}
	}
	r.act(a)
	st.State, st.TriggerID, st.TriggerTimestamp = flinkv1beta1.SnapshotInProgress, id, Timestamp(r.in.Now)
	r.res.RequeueAfter = r.in.ProgressInterval
	r.event(decide.Normal, "SnapshotTriggered", fmt.Sprintf("Triggered a %s of job %s (trigger %s)", what, t.JobID, id))
}

// pathRefused says why the snapshot's own path is outside what its namespace may use
// (Input.Paths), or "": the existing savepoint it records to dispose of on deletion, or the
// directory it asks a savepoint to be taken to. A record that will never be disposed of
// (disposeOnDelete false: the operator's own records of its savepoints among them) deletes
// nothing and is not judged; a savepoint taken to its job's default directory is not judged
// here either: its disposal is.
func (r *run) pathRefused() string {
	sp := r.s.Spec.Savepoint
	switch {
	case sp == nil || sp.Path == "":
		return ""
	case sp.AlreadyExists && !sp.EffectiveDisposeOnDelete():
		return ""
	case sp.AlreadyExists:
		if why := r.in.Paths.refusal(r.s.Namespace, sp.Path, true); why != "" {
			return "Not recording the existing savepoint: " + why
		}
	default:
		if why := r.in.Paths.refusal(r.s.Namespace, sp.Path, false); why != "" {
			return "Not taking a savepoint to spec.savepoint.path: " + why
		}
	}
	return ""
}

// invalid records why a pending snapshot cannot be triggered yet and looks again later.
func (r *run) invalid(msg string) {
	if r.res.Status.Error != msg {
		r.event(decide.Warning, "ValidationError", msg)
	}
	r.res.Status.Error = msg
	r.res.RequeueAfter = r.in.ReconcileInterval
}

// inProgress follows the operation in flight.
func (r *run) inProgress() {
	if r.abandonIfNotRunning() {
		return
	}
	st, op := &r.res.Status, r.in.Observed.Operation
	what, _ := r.what()
	switch {
	case op == nil || (!op.Done && !op.Lost):
		r.res.RequeueAfter = r.in.ProgressInterval
	case op.Lost:
		r.fail(fmt.Sprintf("Flink no longer knows %s trigger %s (expired, or its JobManager restarted)", what, st.TriggerID))
	case op.Failure != "":
		r.fail(op.Failure)
	case r.s.Spec.IsSavepoint():
		r.completeAt(op.Location)
	case r.in.Observed.CheckpointPath != "":
		r.completeAt(r.in.Observed.CheckpointPath)
	default:
		r.fail(fmt.Sprintf("Checkpoint %d was successful, but failed to fetch its path (Flink's web server keeps only the newest checkpoints: raise web.checkpoints.history for this job): %s",
			op.CheckpointID, r.in.Observed.CheckpointPathError))
	}
}

// completeAt completes the snapshot at the path its JobManager reported, which must be a
// path: an empty or oversized one (a tenant's JobManager answers) is a failed attempt.
func (r *run) completeAt(path string) {
	switch {
	case path == "":
		r.fail("Flink reported the snapshot completed without its path")
	case len(path) > flinkv1beta1.MaxSnapshotPathLength:
		r.fail(fmt.Sprintf("Flink reported a path of %d characters (at most %d)", len(path), flinkv1beta1.MaxSnapshotPathLength))
	default:
		r.complete(path)
	}
}

func (r *run) complete(path string) {
	st := &r.res.Status
	st.State, st.Path, st.Error, st.ResultTimestamp = flinkv1beta1.SnapshotCompleted, path, "", Timestamp(r.in.Now)
	what, _ := r.what()
	r.event(decide.Normal, "SnapshotCompleted", fmt.Sprintf("The %s completed: %s", what, path))
}

// fail counts a failed attempt: FAILED when no retry is left, else TRIGGER_PENDING again after
// the back-off.
func (r *run) fail(msg string) {
	st := &r.res.Status
	st.Failures++
	st.Error, st.ResultTimestamp = msg, Timestamp(r.in.Now)
	_, reason := r.what()
	r.event(decide.Warning, reason, msg)
	if limit := r.s.Spec.EffectiveBackoffLimit(); limit >= 0 && st.Failures > limit {
		st.State = flinkv1beta1.SnapshotFailed
		r.res.RequeueAfter = 0
		return
	}
	st.State = flinkv1beta1.SnapshotTriggerPending
	r.res.RequeueAfter = RetryDelay(st.Failures)
}

// retryWait is how long a snapshot that failed still waits before its next attempt.
func (r *run) retryWait() time.Duration {
	st := r.res.Status
	if st.Failures == 0 {
		return 0
	}
	last, err := time.Parse(time.RFC3339Nano, st.ResultTimestamp)
	if err != nil {
		return 0
	}
	return max(0, last.Add(RetryDelay(st.Failures)).Sub(r.in.Now))
}

// RetryDelay is the wait after the n-th failure in a row: RetryBaseDelay doubled n-1 times, at
// most RetryMaxDelay.
func RetryDelay(n int) time.Duration {
	d := RetryBaseDelay
	for i := 1; i < n && d < RetryMaxDelay; i++ {
		d *= 2
	}
	return min(d, RetryMaxDelay)
}

// abandonIfNotRunning abandons the snapshot when its job is gone or does not run (Apache's
// rule and messages): nothing will be taken, and it is not retried.
func (r *run) abandonIfNotRunning() bool {
	t := r.in.Observed.Target
	if t.Found && t.JobState == string(flinkv1beta1.JobStatusRunning) {
		return false
	}
	what, _ := r.what()
	ref := r.s.Spec.JobReference
	if ref == nil {
		ref = &flinkv1beta1.JobReference{} // removed from a snapshot in flight: no job
	}
	msg := fmt.Sprintf("Secondary resource %s (%s) for %s %s is not running", ref.Name, ref.Kind, what, r.s.Name)
	if !t.Found {
		msg = fmt.Sprintf("Secondary resource %s (%s) for %s %s was not found", ref.Name, ref.Kind, what, r.s.Name)
	}
	st := &r.res.Status
	st.State, st.Path, st.Error, st.ResultTimestamp = flinkv1beta1.SnapshotAbandoned, "", msg, Timestamp(r.in.Now)
	r.res.RequeueAfter = 0
	r.event(decide.Warning, "SnapshotAbandoned", msg)
	return true
}

// labels are Apache's labels of the snapshot, set when they differ.
func (r *run) labels() {
	s := r.s
	want := maps.Clone(s.Labels)
	if want == nil {
		want = map[string]string{}
	}
	want[LabelType] = "CHECKPOINT"
	if s.Spec.IsSavepoint() {
		want[LabelType] = "SAVEPOINT"
	}
	if want[LabelTriggerType] == "" {
		want[LabelTriggerType] = string(flinkv1beta1.SnapshotTriggerManual)
	}
	want[LabelState] = string(r.res.Status.State)
	if ref := s.Spec.JobReference; ref != nil && r.in.Observed.Target.Found && len(validation.IsValidLabelValue(ref.Name)) == 0 {
		want[LabelJobKind], want[LabelJobName] = string(ref.Kind), ref.Name
	}
	if !maps.Equal(want, s.Labels) {
		r.res.Labels = want
	}
}

// checkpointsSupported reports whether Flink v triggers checkpoints over REST (1.17 on).
func checkpointsSupported(v flinkv1beta1.FlinkVersion) bool { return v.AtLeast(1, 17) }

// Timestamp formats t as Apache's snapshot timestamps are (ISO-8601 UTC, milliseconds when
// not zero).
func Timestamp(t time.Time) string {
	t = t.UTC().Truncate(time.Millisecond)
	if t.Nanosecond() == 0 {
		return t.Format("2006-01-02T15:04:05Z")
	}
	return t.Format("2006-01-02T15:04:05.000Z")
}

// act sets the reconcile's one action; a second one panics (decide.OneAction).
func (r *run) act(a Action) {
	decide.OneAction("snapshot", r.res.Action.Kind, a.Kind)
	r.res.Action = a
}
