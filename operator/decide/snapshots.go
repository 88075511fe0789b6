package decide

import (
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
)

// book is the step's view of the job status's snapshot part.
func (s *step) book() Book {
	return Book{JS: &s.st.JobStatus, Now: s.in.Now, Format: s.in.Options.SavepointFormat, CheckpointType: s.in.Options.CheckpointType, Drain: s.in.Options.DrainOnSavepoint, Events: &s.res.Events, Records: &s.res.Records}
}

// setTrigger records a pending savepoint.
func (s *step) setTrigger(id string, t flinkv1beta1.SnapshotTriggerType) { s.book().SetTrigger(id, t) }

func (s *step) clearTrigger() { s.book().ClearTrigger() }

// completeSavepoint records a completed savepoint as the last one and in the history.
func (s *step) completeSavepoint(location string) {
	var nonce *int64
	if s.d.Spec.Job != nil && s.last.Spec.Job != nil {
		nonce = s.last.Spec.Job.SavepointTriggerNonce
	}
	s.book().CompleteSavepoint(location, nonce)
}

// pollTriggers follows a manual savepoint or checkpoint in flight. It reports whether one is
// still pending.
func (s *step) pollTriggers() bool {
	if s.in.Observed.JobManager == nil {
		// The cluster is gone (suspended, or torn down by an upgrade): nothing is in flight.
		s.book().DropTriggers("its JobManager is gone")
		return false
	}
	return s.book().Poll(s.in.Observed.Savepoint, s.in.Observed.Checkpoint, s.last.Spec.Job)
}

// nonces handles changed savepoint and checkpoint nonces, one per reconcile. The new nonce is
// written to the reconciled spec with the trigger, so a failure is never retried.
func (s *step) nonces() bool {
	if SavepointNonceWaits(s.d.Spec.Job, s.last.Spec.Job, s.in.Observed.Job) {
		s.requeue(s.in.Options.ProgressCheckInterval)
		return true
	}
	n := ChangedNonce(s.d.Spec.Job, s.last.Spec.Job)
	if n.Kind == "" {
		return false
	}
	s.recordIgnorable()
	o := s.in.Observed
	running := o.Job != nil && o.Job.State == "RUNNING" && o.RESTReachable
	jobID := ""
	if o.Job != nil {
		jobID = o.Job.ID
	}
	s.act(s.book().Trigger(n, string(s.d.UID), jobID, running))
	return true
}

func equalNonce(a, b *int64) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

// recordIgnorable writes a change that runs nothing into the reconciled spec; a stable spec
// stays stable.
func (s *step) recordIgnorable() { RecordIgnorable(&s.st.ReconciliationStatus, s.last.Encode()) }

// pendingSavepointHolds reports whether a manual or periodic savepoint in flight holds the
// teardown of an upgrade or suspend: by default it finishes (or fails) first, so the new job
// never starts from state older than a savepoint Flink was taking, and two savepoints never
// stop one job. With kubernetes.operator.job.upgrade.ignore-pending-savepoint the savepoint
// is abandoned (a Warning says so) and the teardown goes on. A savepoint of a job whose
// JobManager does not answer, or that ended, holds nothing here: the teardown decides (a
// savepoint teardown polls it, a last-state one waits a bounded time for the REST API, a
// stateless one goes on), as before this rule.
func (s *step) pendingSavepointHolds() bool {
	sp := s.st.JobStatus.SavepointInfo
	if sp == nil || sp.TriggerID == "" || sp.TriggerType == flinkv1beta1.SnapshotTriggerUpgrade {
		return false
	}
	if s.in.Options.IgnorePendingSavepoint {
		s.book().AbandonSavepoint("the upgrade does not wait for it (" + config.KeyIgnorePendingSavepoint + " is true)")
		return false
	}
	o := s.in.Observed
	if !o.RESTReachable || o.Job == nil || jobState(o.Job.State).globallyTerminal() {
		return false
	}
	s.pollTriggers()
	return true
}
