package decide

import (
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// Records are the FlinkStateSnapshot resources that record a job's savepoints: one for each
// savepoint the operator completes for it (manual, periodic or upgrade), gone when the
// savepoint leaves the job's history. The controller writes them before the status write
// that records the completion (or the trim), so a lost status write repeats the same records
// (named after the savepoint's path) and none is lost or made twice. They are computed
// always and written only while kubernetes.operator.snapshot.resource.enabled is on.
type Records struct {
	// Create are completed savepoints to record.
	Create []flinkv1beta1.Savepoint
	// Delete are savepoints trimmed from the history whose records go.
	Delete []flinkv1beta1.Savepoint
}

// Empty reports whether r writes nothing.
func (r Records) Empty() bool { return len(r.Create) == 0 && len(r.Delete) == 0 }

// record adds a completed savepoint to the records to create.
func (b Book) record(sp flinkv1beta1.Savepoint) {
	if b.Records != nil && sp.Location != "" {
		b.Records.Create = append(b.Records.Create, sp)
	}
}

// forget adds a savepoint trimmed from the history to the records to delete.
func (b Book) forget(sp flinkv1beta1.Savepoint) {
	if b.Records != nil && sp.Location != "" {
		b.Records.Delete = append(b.Records.Delete, sp)
	}
}

// AdoptTaken makes t, the newest savepoint a FlinkStateSnapshot took of the job, the job's
// last savepoint when it is newer than the one the status records: the savepoint a restart
// without HA metadata, or a fallback, restores when it is the newest state, and one no
// disposal may remove meanwhile (WouldRestoreFrom). It does not enter the history: the
// snapshot's owner decides its files. It reports whether it adopted t.
func (b Book) AdoptTaken(t *TakenSavepoint) bool {
	if t == nil || t.Path == "" || b.PendingSavepoint() != "" {
		return false
	}
	if !t.NewerThanLast(b.JS) {
		return false
	}
	b.Savepoints().LastSavepoint = &flinkv1beta1.Savepoint{
		TimeStamp: t.Time, Location: t.Path, TriggerType: flinkv1beta1.SnapshotTriggerManual, FormatType: t.Format,
	}
	b.event(Normal, "SavepointCompleted", "Savepoint "+t.Path+" of FlinkStateSnapshot "+t.Name+" is the job's last savepoint")
	return true
}

// NewerThanLast reports whether t is newer than the last savepoint js records (and not it).
func (t *TakenSavepoint) NewerThanLast(js *flinkv1beta1.JobStatus) bool {
	sp := js.SavepointInfo
	return sp == nil || sp.LastSavepoint == nil || (sp.LastSavepoint.Location != t.Path && sp.LastSavepoint.TimeStamp < t.Time)
}
