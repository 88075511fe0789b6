package decide

import (
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

func (s *step) savepointInfo() *flinkv1beta1.SavepointInfo {
	if s.st.JobStatus.SavepointInfo == nil {
		s.st.JobStatus.SavepointInfo = &flinkv1beta1.SavepointInfo{}
	}
	return s.st.JobStatus.SavepointInfo
}

func (s *step) checkpointInfo() *flinkv1beta1.CheckpointInfo {
	if s.st.JobStatus.CheckpointInfo == nil {
		s.st.JobStatus.CheckpointInfo = &flinkv1beta1.CheckpointInfo{}
	}
	return s.st.JobStatus.CheckpointInfo
}

// setTrigger records a pending savepoint.
func (s *step) setTrigger(id string, t flinkv1beta1.SnapshotTriggerType) {
	sp := s.savepointInfo()
	now := s.in.Now.UnixMilli()
	sp.TriggerID, sp.TriggerTimestamp, sp.TriggerType = id, &now, t
	sp.FormatType = flinkv1beta1.SavepointFormatType(s.in.Options.SavepointFormat)
}

func (s *step) clearTrigger() {
	sp := s.savepointInfo()
	sp.TriggerID, sp.TriggerTimestamp, sp.TriggerType, sp.FormatType = "", nil, "", ""
}

// completeSavepoint records a completed savepoint as the last one and in the history.
func (s *step) completeSavepoint(location string) {
	sp := s.savepointInfo()
	saved := flinkv1beta1.Savepoint{
		TimeStamp: s.in.Now.UnixMilli(), Location: location, TriggerType: sp.TriggerType, FormatType: sp.FormatType,
	}
	if sp.TriggerType == flinkv1beta1.SnapshotTriggerManual && s.d.Spec.Job != nil {
		saved.TriggerNonce = s.last.Spec.Job.SavepointTriggerNonce
	}
	s.clearTrigger()
	sp.LastSavepoint = &saved
	sp.SavepointHistory = append(sp.SavepointHistory, saved) // trimmed by cleanHistory
	s.event(Normal, "SavepointCompleted", "Savepoint completed: "+location)
}

// pollTriggers follows a manual savepoint or checkpoint in flight. It reports whether one is
// still pending.
func (s *step) pollTriggers() bool {
	pending := false
	if s.in.Observed.JobManager == nil {
		// The cluster is gone (suspended, or torn down by an upgrade): nothing is in flight.
		s.dropTriggersOfAGoneCluster()
		return false
	}
	if sp := s.st.JobStatus.SavepointInfo; sp != nil && sp.TriggerID != "" {
		op := s.in.Observed.Savepoint
		switch {
		case op == nil || (!op.Done && !op.Lost):
			pending = true
		case op.Lost:
			s.clearTrigger()
			s.event(Warning, "SavepointError", "Savepoint "+sp.TriggerID+" was lost: Flink no longer knows the trigger")
		case op.Failure != "":
			s.clearTrigger()
			s.event(Warning, "SavepointError", "Savepoint failed: "+op.Failure)
		default:
			s.completeSavepoint(op.Location)
		}
	}
	if cp := s.st.JobStatus.CheckpointInfo; cp != nil && cp.TriggerID != "" {
		op := s.in.Observed.Checkpoint
		switch {
		case op == nil || (!op.Done && !op.Lost):
			pending = true
		case op.Lost || op.Failure != "":
			why := op.Failure
			if op.Lost {
				why = "Flink no longer knows the trigger"
			}
			s.clearCheckpointTrigger()
			s.event(Warning, "CheckpointError", "Checkpoint failed: "+why)
		default:
			done := flinkv1beta1.Checkpoint{TimeStamp: s.in.Now.UnixMilli(), TriggerType: cp.TriggerType, FormatType: cp.FormatType}
			if s.last.Spec.Job != nil {
				done.TriggerNonce = s.last.Spec.Job.CheckpointTriggerNonce
			}
			s.clearCheckpointTrigger()
			cp.LastCheckpoint = &done
			s.event(Normal, "CheckpointCompleted", "Checkpoint completed")
		}
	}
	return pending
}

// dropTriggersOfAGoneCluster clears savepoint and checkpoint triggers whose JobManager is gone:
// they can neither complete nor be asked about.
func (s *step) dropTriggersOfAGoneCluster() {
	if sp := s.st.JobStatus.SavepointInfo; sp != nil && sp.TriggerID != "" {
		s.event(Warning, "SavepointError", "Savepoint "+sp.TriggerID+" was lost: its JobManager is gone")
		s.clearTrigger()
	}
	if cp := s.st.JobStatus.CheckpointInfo; cp != nil && cp.TriggerID != "" {
		s.event(Warning, "CheckpointError", "Checkpoint "+cp.TriggerID+" was lost: its JobManager is gone")
		s.clearCheckpointTrigger()
	}
}

func (s *step) clearCheckpointTrigger() {
	cp := s.checkpointInfo()
	cp.TriggerID, cp.TriggerTimestamp, cp.TriggerType, cp.FormatType = "", nil, "", ""
}

// nonces handles changed savepoint and checkpoint nonces, one per reconcile. The new nonce is
// written to the reconciled spec with the trigger, so a failure is never retried.
func (s *step) nonces() bool {
	want, had := s.d.Spec.Job, s.last.Spec.Job
	if want == nil || had == nil {
		return false
	}
	o := s.in.Observed
	running := o.Job != nil && o.Job.State == "RUNNING" && o.RESTReachable
	if n := want.SavepointTriggerNonce; n != nil && !equalNonce(n, had.SavepointTriggerNonce) {
		had.SavepointTriggerNonce = n
		s.recordIgnorable()
		if !running {
			s.event(Warning, "SavepointError", "Cannot trigger the savepoint of nonce "+itoa(*n)+": the job is not running")
			return true
		}
		id := triggerID(string(s.d.UID), "savepoint", *n)
		s.res.Action = Action{Kind: ActTriggerSavepoint, JobID: o.Job.ID, TriggerID: id, FormatType: s.in.Options.SavepointFormat}
		s.setTrigger(id, flinkv1beta1.SnapshotTriggerManual)
		s.event(Normal, "SavepointTriggered", "Triggering a savepoint for nonce "+itoa(*n))
		return true
	}
	if n := want.CheckpointTriggerNonce; n != nil && !equalNonce(n, had.CheckpointTriggerNonce) {
		had.CheckpointTriggerNonce = n
		s.recordIgnorable()
		if !running {
			s.event(Warning, "CheckpointError", "Cannot trigger the checkpoint of nonce "+itoa(*n)+": the job is not running")
			return true
		}
		id := triggerID(string(s.d.UID), "checkpoint", *n)
		s.res.Action = Action{Kind: ActTriggerCheckpoint, JobID: o.Job.ID, TriggerID: id}
		cp := s.checkpointInfo()
		now := s.in.Now.UnixMilli()
		cp.TriggerID, cp.TriggerTimestamp, cp.TriggerType, cp.FormatType = id, &now, flinkv1beta1.SnapshotTriggerManual, "FULL"
		s.event(Normal, "CheckpointTriggered", "Triggering a checkpoint for nonce "+itoa(*n))
		return true
	}
	return false
}

func equalNonce(a, b *int64) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

// recordIgnorable writes a change that runs nothing into the reconciled spec; a stable spec
// stays stable.
func (s *step) recordIgnorable() {
	rs := &s.st.ReconciliationStatus
	wasStable := rs.LastStableSpec == rs.LastReconciledSpec
	rs.LastReconciledSpec = s.last.Encode()
	if wasStable {
		rs.LastStableSpec = rs.LastReconciledSpec
	}
}
