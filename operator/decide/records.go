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
