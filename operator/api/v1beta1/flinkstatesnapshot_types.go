package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// JobKind is the kind of resource a snapshot's job reference names.
// +kubebuilder:validation:Enum=FlinkDeployment;FlinkSessionJob
type JobKind string

// The job kinds a snapshot can reference.
const (
	JobKindDeployment JobKind = "FlinkDeployment"
	JobKindSessionJob JobKind = "FlinkSessionJob"
)

// JobReference names the FlinkDeployment or FlinkSessionJob (same namespace) whose job a
// snapshot is taken of.
type JobReference struct {
	// Kind is FlinkDeployment or FlinkSessionJob.
	// +optional
	Kind JobKind `json:"kind,omitempty"`
	// Name is the resource's name.
	// +optional
	Name string `json:"name,omitempty"`
}

// SavepointSpec asks for a savepoint, or records one that exists (AlreadyExists).
type SavepointSpec struct {
	// Path is the directory the savepoint is written under (default: the job's
	// execution.checkpointing.savepoint-dir), or with AlreadyExists the savepoint itself.
	// +optional
	Path string `json:"path,omitempty"`
	// FormatType is the savepoint's format (default CANONICAL).
	// +optional
	FormatType SavepointFormatType `json:"formatType,omitempty"`
	// DisposeOnDelete disposes of the savepoint when the snapshot resource is deleted
	// (default true).
	// +optional
	DisposeOnDelete *bool `json:"disposeOnDelete,omitempty"`
	// AlreadyExists records the savepoint at Path without triggering one.
	// +optional
	AlreadyExists bool `json:"alreadyExists,omitempty"`
}

// CheckpointSpec asks for a checkpoint; it has no options.
type CheckpointSpec struct{}

// FlinkStateSnapshotSpec is the snapshot asked for: exactly one of Savepoint and Checkpoint.
// It is immutable (a snapshot in flight keeps the job and path it was triggered for): ask for
// another snapshot with a new resource.
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec is immutable: create a new FlinkStateSnapshot"
type FlinkStateSnapshotSpec struct {
	// JobReference is the job the snapshot is taken of (not needed when the savepoint
	// already exists).
	// +optional
	JobReference *JobReference `json:"jobReference,omitempty"`
	// Savepoint asks for a savepoint.
	// +optional
	Savepoint *SavepointSpec `json:"savepoint,omitempty"`
	// Checkpoint asks for a checkpoint.
	// +optional
	Checkpoint *CheckpointSpec `json:"checkpoint,omitempty"`
	// BackoffLimit is how many failed attempts are retried: -1 (the default) without limit,
	// 0 never.
	// +optional
	BackoffLimit *int `json:"backoffLimit,omitempty"`
}

// SnapshotState is the state of a FlinkStateSnapshot.
// +kubebuilder:validation:Enum=ABANDONED;COMPLETED;FAILED;IN_PROGRESS;TRIGGER_PENDING
type SnapshotState string

// The snapshot states.
const (
	// SnapshotTriggerPending: the snapshot is to be triggered (new, or retrying).
	SnapshotTriggerPending SnapshotState = "TRIGGER_PENDING"
	// SnapshotInProgress: Flink is taking it (status.triggerId).
	SnapshotInProgress SnapshotState = "IN_PROGRESS"
	// SnapshotCompleted: taken (or recorded), at status.path.
	SnapshotCompleted SnapshotState = "COMPLETED"
	// SnapshotFailed: the last attempt failed and no retry is left.
	SnapshotFailed SnapshotState = "FAILED"
	// SnapshotAbandoned: the referenced job is gone or not running; nothing will be taken.
	SnapshotAbandoned SnapshotState = "ABANDONED"
)

// FlinkStateSnapshotStatus is the observed state of a FlinkStateSnapshot.
type FlinkStateSnapshotStatus struct {
	// State is where the snapshot stands.
	// +optional
	State SnapshotState `json:"state,omitempty"`
	// TriggerID is Flink's id of the attempt in flight or last made.
	// +optional
	TriggerID string `json:"triggerId,omitempty"`
	// TriggerTimestamp is when that attempt was triggered (RFC 3339).
	// +optional
	TriggerTimestamp string `json:"triggerTimestamp,omitempty"`
	// ResultTimestamp is when the snapshot completed or finally failed (RFC 3339).
	// +optional
	ResultTimestamp string `json:"resultTimestamp,omitempty"`
	// Path is where the completed snapshot is.
	// +optional
	Path string `json:"path,omitempty"`
	// Error is why the last attempt failed, or why the snapshot was abandoned.
	// +optional
	Error string `json:"error,omitempty"`
	// Failures counts the failed attempts.
	// +optional
	Failures int `json:"failures,omitempty"`
}

// FlinkStateSnapshot is a savepoint or checkpoint of a Flink job, as a resource.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=flinksnp
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Path",type=string,JSONPath=".status.path"
// +kubebuilder:printcolumn:name="Result Timestamp",type=string,JSONPath=".status.resultTimestamp"
// +kubebuilder:printcolumn:name="Snapshot State",type=string,JSONPath=".status.state"
type FlinkStateSnapshot struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the snapshot asked for.
	// +optional
	Spec FlinkStateSnapshotSpec `json:"spec,omitempty"`
	// Status is the observed state.
	// +optional
	Status FlinkStateSnapshotStatus `json:"status,omitempty"`
}

// FlinkStateSnapshotList is a list of FlinkStateSnapshots.
//
// +kubebuilder:object:root=true
type FlinkStateSnapshotList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the FlinkStateSnapshots.
	Items []FlinkStateSnapshot `json:"items"`
}

// DefaultBackoffLimit is BackoffLimit's default: retry without limit.
const DefaultBackoffLimit = -1

// EffectiveBackoffLimit is BackoffLimit or its default.
func (s *FlinkStateSnapshotSpec) EffectiveBackoffLimit() int {
	if s.BackoffLimit == nil {
		return DefaultBackoffLimit
	}
	return *s.BackoffLimit
}

// IsSavepoint reports whether the snapshot is a savepoint (else a checkpoint).
func (s *FlinkStateSnapshotSpec) IsSavepoint() bool { return s.Savepoint != nil }
