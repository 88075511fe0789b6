package snapshot

import (
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

// Labels the operator keeps on every snapshot (Apache's keys and values).
const (
	// LabelType is SAVEPOINT or CHECKPOINT.
	LabelType = "snapshot.type"
	// LabelTriggerType is MANUAL, PERIODIC or UPGRADE (kept when set, else MANUAL).
	LabelTriggerType = "snapshot.trigger-type"
	// LabelState is the snapshot's status.state.
	LabelState = "snapshot.state"
	// LabelJobKind and LabelJobName name the referenced resource, once it is found.
	LabelJobKind = "job-reference.kind"
	LabelJobName = "job-reference.name"
)

// RetryBaseDelay is the wait before the first retry of a failed snapshot; each further failure
// doubles it, up to RetryMaxDelay.
const (
	RetryBaseDelay = 10 * time.Second
	RetryMaxDelay  = 5 * time.Minute
)

// Target is what the operator saw of the resource a snapshot references.
type Target struct {
	// Found is false when the reference names no resource.
	Found bool
	// JobID and JobState are the job's id and state as the resource's status has them.
	JobID    string
	JobState string
	// FlinkVersion is the cluster's (checkpoints need 1.17 or later).
	FlinkVersion flinkv1beta1.FlinkVersion
	// SavepointDir is the job's default savepoint directory ("" when none is configured).
	SavepointDir string
}

// Observation is what the operator saw of one snapshot's job and its operation in Flink.
type Observation struct {
	// Target is the referenced resource.
	Target Target
	// Operation is what Flink says of status.triggerId while IN_PROGRESS (nil when its
	// JobManager did not answer).
	Operation *decide.OperationObservation
	// CheckpointPath is a completed checkpoint's external path ("" when it could not be read:
	// CheckpointPathError says why).
	CheckpointPath      string
	CheckpointPathError string
	// RestoredBy names a job that would restore from the completed savepoint, and why: it is
	// the upgrade, last or pending initial savepoint of a FlinkDeployment or FlinkSessionJob
	// in any namespace the operator watches (paths compared in canonical form), or the
	// referenced job's newest savepoint with no checkpoint since (a last-state restore would
	// take it). It is not disposed of meanwhile.
	RestoredBy string
}

// Input is everything Decide reads.
type Input struct {
	// Resource is the snapshot as read, with its current status.
	Resource *flinkv1beta1.FlinkStateSnapshot
	// Observed is what was observed.
	Observed Observation
	// Now is the current time (from the injected clock).
	Now time.Time
	// ReconcileInterval is how often a snapshot waiting for its job looks again.
	ReconcileInterval time.Duration
	// ProgressInterval is how often a snapshot in progress is polled.
	ProgressInterval time.Duration
	// Paths are where snapshots of the resource's namespace may record, take and dispose of
	// savepoints (the operator's configuration for the namespace).
	Paths PathRules
}

// ActionKind names what the executor does.
type ActionKind string

// The snapshot actions.
const (
	ActNone              ActionKind = ""
	ActTriggerSavepoint  ActionKind = "TriggerSavepoint"
	ActTriggerCheckpoint ActionKind = "TriggerCheckpoint"
	ActDispose           ActionKind = "DisposeSavepoint"
)

// Action is one thing to do in Flink.
type Action struct {
	Kind ActionKind
	// JobID and TriggerID of a trigger.
	JobID, TriggerID string
	// TargetDirectory of a savepoint ("" for the cluster's default), FormatType its format.
	TargetDirectory, FormatType string
	// Path is the savepoint to dispose of.
	Path string
}

// Result is what Decide chose.
type Result struct {
	Action Action
	Status flinkv1beta1.FlinkStateSnapshotStatus
	// Labels are the snapshot's labels as they should be (nil: unchanged).
	Labels       map[string]string
	Events       []decide.Event
	RequeueAfter time.Duration
	// RemoveFinalizer is set when deletion is complete (after Action succeeds).
	RemoveFinalizer bool
}
