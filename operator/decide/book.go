package decide

import (
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// Book keeps the snapshot part of a job's status: the pending savepoint and checkpoint
// triggers, the last savepoint and checkpoint, and the savepoint history. FlinkDeployments and
// FlinkSessionJobs keep their books the same way.
type Book struct {
	// JS is the job status being written.
	JS *flinkv1beta1.JobStatus
	// Now is the reconcile's time.
	Now time.Time
	// Format is the savepoint format type of new triggers.
	Format string
	// Drain drains a job stopped with a savepoint first.
	Drain bool
	// CheckpointType is the type of new checkpoint triggers (FULL or INCREMENTAL; "": FULL).
	CheckpointType string
	// Events collects the events the book records.
	Events *[]Event
	// Records collects the snapshot resources to write (nil: none).
	Records *Records
}

func (b Book) event(t EventType, reason, msg string) {
	*b.Events = append(*b.Events, Event{Type: t, Reason: reason, Message: msg})
}

// Savepoints returns the savepoint info, creating it when missing.
func (b Book) Savepoints() *flinkv1beta1.SavepointInfo {
	if b.JS.SavepointInfo == nil {
		b.JS.SavepointInfo = &flinkv1beta1.SavepointInfo{}
	}
	return b.JS.SavepointInfo
}

// Checkpoints returns the checkpoint info, creating it when missing.
func (b Book) Checkpoints() *flinkv1beta1.CheckpointInfo {
	if b.JS.CheckpointInfo == nil {
		b.JS.CheckpointInfo = &flinkv1beta1.CheckpointInfo{}
	}
	return b.JS.CheckpointInfo
}

// PendingSavepoint returns the trigger id of the savepoint in flight ("" when none).
func (b Book) PendingSavepoint() string {
	if sp := b.JS.SavepointInfo; sp != nil {
		return sp.TriggerID
	}
	return ""
}

// SetTrigger records a pending savepoint.
func (b Book) SetTrigger(id string, t flinkv1beta1.SnapshotTriggerType) {
	sp := b.Savepoints()
	now := b.Now.UnixMilli()
	sp.TriggerID, sp.TriggerTimestamp, sp.TriggerType = id, &now, t
	sp.FormatType = flinkv1beta1.SavepointFormatType(b.Format)
}

// ClearTrigger forgets the pending savepoint.
func (b Book) ClearTrigger() {
	sp := b.Savepoints()
	sp.TriggerID, sp.TriggerTimestamp, sp.TriggerType, sp.FormatType = "", nil, "", ""
}

// LoseSavepoint clears a savepoint trigger Flink no longer knows (its result expired, or the
// JobManager restarted) and says so in a Warning: label names the savepoint, then says what
// follows.
func (b Book) LoseSavepoint(label, then string) {
	id := b.Savepoints().TriggerID
	b.ClearTrigger()
	b.event(Warning, "SavepointError", label+" "+id+" was lost: Flink no longer knows the trigger"+then)
}

// SetCheckpointTrigger records a pending checkpoint of trigger type t.
func (b Book) SetCheckpointTrigger(id string, t flinkv1beta1.SnapshotTriggerType) {
	cp := b.Checkpoints()
	now := b.Now.UnixMilli()
	cp.TriggerID, cp.TriggerTimestamp, cp.TriggerType, cp.FormatType = id, &now, t, flinkv1beta1.CheckpointFormatType(b.checkpointType())
}

// checkpointType is the type of new checkpoint triggers.
func (b Book) checkpointType() string {
	if b.CheckpointType == "" {
		return "FULL"
	}
	return b.CheckpointType
}

// ClearCheckpointTrigger forgets the pending checkpoint.
func (b Book) ClearCheckpointTrigger() {
	cp := b.Checkpoints()
	cp.TriggerID, cp.TriggerTimestamp, cp.TriggerType, cp.FormatType = "", nil, "", ""
}

// CompleteSavepoint records a completed savepoint as the last one and in the history; nonce
// is the savepointTriggerNonce of a manual savepoint.
func (b Book) CompleteSavepoint(location string, nonce *int64) {
	b.record(b.completeSavepoint(location, nonce))
}

// completeSavepoint is CompleteSavepoint without the record, which it returns.
func (b Book) completeSavepoint(location string, nonce *int64) flinkv1beta1.Savepoint {
	sp := b.Savepoints()
	saved := flinkv1beta1.Savepoint{
		TimeStamp: b.Now.UnixMilli(), Location: location, TriggerType: sp.TriggerType, FormatType: sp.FormatType,
	}
	if sp.TriggerType == flinkv1beta1.SnapshotTriggerManual {
		saved.TriggerNonce = nonce
	}
	b.ClearTrigger()
	sp.LastSavepoint = &saved
	sp.SavepointHistory = append(sp.SavepointHistory, saved) // trimmed by the history cleanup
	b.event(Normal, "SavepointCompleted", "Savepoint completed: "+location)
	return saved
}

// Poll follows the savepoint and checkpoint in flight (sp and cp are what Flink says of them;
// job is the spec whose nonces they were triggered for). It reports whether one is still
// pending.
func (b Book) Poll(sp, cp *OperationObservation, job *flinkv1beta1.JobSpec) bool {
	pending := false
	var spNonce, cpNonce *int64
	if job != nil {
		spNonce, cpNonce = job.SavepointTriggerNonce, job.CheckpointTriggerNonce
	}
	if info := b.JS.SavepointInfo; info != nil && info.TriggerID != "" {
		switch {
		case sp == nil || (!sp.Done && !sp.Lost):
			pending = true
		case sp.Lost:
			b.LoseSavepoint("Savepoint", "")
		case sp.Failure != "":
			b.ClearTrigger()
			b.event(Warning, "SavepointError", "Savepoint failed: "+sp.Failure)
		default:
			b.CompleteSavepoint(sp.Location, spNonce)
		}
	}
	if info := b.JS.CheckpointInfo; info != nil && info.TriggerID != "" {
		switch {
		case cp == nil || (!cp.Done && !cp.Lost):
			pending = true
		case cp.Lost || cp.Failure != "":
			why := cp.Failure
			if cp.Lost {
				why = "Flink no longer knows the trigger"
			}
			b.ClearCheckpointTrigger()
			b.event(Warning, "CheckpointError", "Checkpoint failed: "+why)
		default:
			done := flinkv1beta1.Checkpoint{TimeStamp: b.Now.UnixMilli(), TriggerType: info.TriggerType, FormatType: info.FormatType}
			if info.TriggerType == flinkv1beta1.SnapshotTriggerManual {
				done.TriggerNonce = cpNonce // a periodic checkpoint answers no nonce
			}
			b.ClearCheckpointTrigger()
			info.LastCheckpoint = &done
			b.event(Normal, "CheckpointCompleted", "Checkpoint completed")
		}
	}
	return pending
}

// AbandonSavepoint forgets the savepoint in flight, which may still complete in Flink
// without being recorded, and warns why.
func (b Book) AbandonSavepoint(why string) {
	if sp := b.JS.SavepointInfo; sp != nil && sp.TriggerID != "" {
		b.event(Warning, "SavepointError", "Savepoint "+sp.TriggerID+" was abandoned: "+why)
		b.ClearTrigger()
	}
}

// DropTriggers clears savepoint and checkpoint triggers whose JobManager (or job) is gone:
// they can neither complete nor be asked about.
func (b Book) DropTriggers(why string) {
	if sp := b.JS.SavepointInfo; sp != nil && sp.TriggerID != "" {
		b.event(Warning, "SavepointError", "Savepoint "+sp.TriggerID+" was lost: "+why)
		b.ClearTrigger()
	}
	if cp := b.JS.CheckpointInfo; cp != nil && cp.TriggerID != "" {
		b.event(Warning, "CheckpointError", "Checkpoint "+cp.TriggerID+" was lost: "+why)
		b.ClearCheckpointTrigger()
	}
}

// Nonce is a snapshot asked for by a changed trigger nonce.
type Nonce struct {
	// Kind is ActTriggerSavepoint or ActTriggerCheckpoint; "" when no nonce changed.
	Kind ActionKind
	// Value is the new nonce.
	Value int64
}

// ChangedNonce returns the first changed savepoint or checkpoint nonce from had to want (one
// per reconcile) and writes it into had, so a failed trigger is never retried.
func ChangedNonce(want, had *flinkv1beta1.JobSpec) Nonce {
	if want == nil || had == nil {
		return Nonce{}
	}
	if n := want.SavepointTriggerNonce; n != nil && !equalNonce(n, had.SavepointTriggerNonce) {
		had.SavepointTriggerNonce = n
		return Nonce{Kind: ActTriggerSavepoint, Value: *n}
	}
	if n := want.CheckpointTriggerNonce; n != nil && !equalNonce(n, had.CheckpointTriggerNonce) {
		had.CheckpointTriggerNonce = n
		return Nonce{Kind: ActTriggerCheckpoint, Value: *n}
	}
	return Nonce{}
}

// SavepointNonceWaits reports whether a changed savepoint nonce from had to want must wait:
// Flink is taking a savepoint of job already (one whose trigger the operator lost with a
// status write, or a FlinkStateSnapshot's), and a second at once is never asked for. The nonce
// is not consumed: it triggers once that savepoint ends.
func SavepointNonceWaits(want, had *flinkv1beta1.JobSpec, job *JobObservation) bool {
	return job != nil && job.SavepointInProgress && want != nil && had != nil &&
		want.SavepointTriggerNonce != nil && !equalNonce(want.SavepointTriggerNonce, had.SavepointTriggerNonce)
}

// Trigger starts the snapshot of a changed nonce for the running job jobID (uid derives the
// trigger id) and returns the action; when the job does not run it records a Warning and
// returns None.
func (b Book) Trigger(n Nonce, uid, jobID string, running bool) Action {
	what, reason := "savepoint", "Savepoint"
	if n.Kind == ActTriggerCheckpoint {
		what, reason = "checkpoint", "Checkpoint"
	}
	if !running {
		b.event(Warning, reason+"Error", "Cannot trigger the "+what+" of nonce "+itoa(n.Value)+": the job is not running")
		return None
	}
	id := TriggerID(uid, what, n.Value)
	b.event(Normal, reason+"Triggered", "Triggering a "+what+" for nonce "+itoa(n.Value))
	if n.Kind == ActTriggerCheckpoint {
		b.SetCheckpointTrigger(id, flinkv1beta1.SnapshotTriggerManual)
		return Action{Kind: ActTriggerCheckpoint, JobID: jobID, TriggerID: id, FormatType: b.checkpointType()}
	}
	b.SetTrigger(id, flinkv1beta1.SnapshotTriggerManual)
	return Action{Kind: ActTriggerSavepoint, JobID: jobID, TriggerID: id, FormatType: b.Format}
}

// DeletionSavepoint stops job with a savepoint before its resource (uid, generation), deleted
// at deletedAt, goes; op is what Flink says of the pending savepoint. It returns the action to
// take (Kind "" for none) and whether deletion waits for the savepoint. A failed savepoint is
// reported and deletion goes on without one; a savepoint Flink takes that status does not show
// ends first.
func (b Book) DeletionSavepoint(op *OperationObservation, deletedAt time.Time, uid string, generation int64, job *JobObservation) (Action, bool) {
	sp := b.JS.SavepointInfo
	if sp != nil && sp.TriggerID != "" {
		switch {
		case op == nil || (!op.Done && !op.Lost):
			return Action{}, true
		case op.Failure == "" && !op.Lost:
			b.completeSavepoint(op.Location, nil) // not recorded: its job goes, and its records with it
		default:
			b.ClearTrigger()
			b.event(Warning, "SavepointError", "Savepoint before deletion failed; cancelling the job without one")
		}
		return Action{}, false
	}
	if sp != nil && sp.LastSavepoint != nil && sp.LastSavepoint.TriggerType == flinkv1beta1.SnapshotTriggerUpgrade &&
		sp.LastSavepoint.TimeStamp >= deletedAt.UnixMilli() {
		return Action{}, false
	}
	if job.SavepointInProgress {
		return Action{}, true
	}
	id := TriggerID(uid, "delete", generation)
	b.SetTrigger(id, flinkv1beta1.SnapshotTriggerUpgrade)
	b.event(Normal, "Cleanup", "Stopping job with a savepoint before deletion")
	return Action{Kind: ActStopWithSavepoint, JobID: job.ID, TriggerID: id, FormatType: b.Format, Drain: b.Drain}, true
}
