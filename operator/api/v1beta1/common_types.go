package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FlinkVersion names a Flink release line, as the Apache operator spells it (v1_20, v2_2, …).
// The enum accepts every value the Apache CRD accepts; Validate rejects those Flinkop does not
// support.
// +kubebuilder:validation:Enum=v1_13;v1_14;v1_15;v1_16;v1_17;v1_18;v1_19;v1_20;v2_0;v2_1;v2_2;v2_3;v2_4
type FlinkVersion string

// UpgradeMode says how the job's state survives a suspend or an upgrade.
// +kubebuilder:validation:Enum=last-state;savepoint;stateless
type UpgradeMode string

const (
	// UpgradeModeStateless cancels the job and starts the new spec with empty state.
	UpgradeModeStateless UpgradeMode = "stateless"
	// UpgradeModeSavepoint stops the job with a savepoint and restores the new spec from it.
	UpgradeModeSavepoint UpgradeMode = "savepoint"
	// UpgradeModeLastState removes the JobManager but keeps HA metadata, and the new spec
	// restores from the latest checkpoint it points at.
	UpgradeModeLastState UpgradeMode = "last-state"
)

// JobState is the desired state of a job: running or suspended.
// +kubebuilder:validation:Enum=running;suspended
type JobState string

const (
	// JobStateRunning asks for the job to run.
	JobStateRunning JobState = "running"
	// JobStateSuspended asks for the job to be stopped, keeping its state per upgrade mode.
	JobStateSuspended JobState = "suspended"
)

// JobSpec describes the Flink job of an application deployment or a session job.
type JobSpec struct {
	// JarURI is the job jar: local:// (inside the image), or for session jobs also file://,
	// http:// and https://. Required for application deployments and session jobs.
	// +optional
	JarURI string `json:"jarURI,omitempty"`

	// Parallelism is the job's default parallelism.
	// +kubebuilder:validation:Minimum=1
	// +optional
	Parallelism *int32 `json:"parallelism,omitempty"`

	// EntryClass is the fully qualified main class, when the jar's manifest does not name one.
	// +optional
	EntryClass string `json:"entryClass,omitempty"`

	// Args are the program arguments passed to the job's main method.
	// +optional
	Args []string `json:"args,omitempty"`

	// State is the desired job state. Defaults to running.
	// +optional
	State JobState `json:"state,omitempty"`

	// SavepointTriggerNonce: changing it to a new non-null value triggers a savepoint.
	// +optional
	SavepointTriggerNonce *int64 `json:"savepointTriggerNonce,omitempty"`

	// InitialSavepointPath is the savepoint the job restores from on its first deployment.
	// +optional
	InitialSavepointPath string `json:"initialSavepointPath,omitempty"`

	// CheckpointTriggerNonce: changing it to a new non-null value triggers a checkpoint.
	// +optional
	CheckpointTriggerNonce *int64 `json:"checkpointTriggerNonce,omitempty"`

	// UpgradeMode says how state survives suspend and upgrade. Defaults to stateless.
	// +optional
	UpgradeMode UpgradeMode `json:"upgradeMode,omitempty"`

	// AllowNonRestoredState lets a restore skip savepoint state that no operator claims.
	// +optional
	AllowNonRestoredState *bool `json:"allowNonRestoredState,omitempty"`

	// SavepointRedeployNonce: changing it redeploys the job from InitialSavepointPath,
	// discarding the current state.
	// +optional
	SavepointRedeployNonce *int64 `json:"savepointRedeployNonce,omitempty"`

	// AutoscalerResetNonce: changing it resets the autoscaler's parallelism overrides.
	// Accepted for compatibility; Flinkop has no autoscaler yet.
	// +optional
	AutoscalerResetNonce *int64 `json:"autoscalerResetNonce,omitempty"`
}

// JobStatusState is the observed state of a Flink job: Flink's job states plus RECONCILING
// while the operator works on the deployment, and CRON_SCHEDULED for a cron template between
// its runs.
// +kubebuilder:validation:Enum=CANCELED;CANCELLING;CREATED;FAILED;FAILING;FINISHED;INITIALIZING;RECONCILING;RESTARTING;RUNNING;SUSPENDED;CRON_SCHEDULED
type JobStatusState string

// The job states, as Flink and the Apache operator name them.
const (
	JobStatusCanceled     JobStatusState = "CANCELED"
	JobStatusCancelling   JobStatusState = "CANCELLING"
	JobStatusCreated      JobStatusState = "CREATED"
	JobStatusFailed       JobStatusState = "FAILED"
	JobStatusFailing      JobStatusState = "FAILING"
	JobStatusFinished     JobStatusState = "FINISHED"
	JobStatusInitializing JobStatusState = "INITIALIZING"
	JobStatusReconciling  JobStatusState = "RECONCILING"
	JobStatusRestarting   JobStatusState = "RESTARTING"
	JobStatusRunning      JobStatusState = "RUNNING"
	JobStatusSuspended    JobStatusState = "SUSPENDED"
	// JobStatusCronScheduled is a cron template's state: its job runs in the runs it creates.
	JobStatusCronScheduled JobStatusState = "CRON_SCHEDULED"
)

// JobStatus is the observed state of the job.
type JobStatus struct {
	// JobName is the name Flink reports for the job.
	// +optional
	JobName string `json:"jobName,omitempty"`
	// JobID is Flink's job id (32 hex characters).
	// +optional
	JobID string `json:"jobId,omitempty"`
	// State is the last observed job state.
	// +optional
	State JobStatusState `json:"state,omitempty"`
	// StartTime is the job's start time in epoch milliseconds, as a string.
	// +optional
	StartTime string `json:"startTime,omitempty"`
	// UpdateTime is when the job status was last observed, epoch milliseconds as a string.
	// +optional
	UpdateTime string `json:"updateTime,omitempty"`
	// UpgradeSavepointPath is the savepoint or checkpoint the next start restores from.
	// +optional
	UpgradeSavepointPath string `json:"upgradeSavepointPath,omitempty"`
	// SavepointInfo tracks triggered and completed savepoints.
	// +optional
	SavepointInfo *SavepointInfo `json:"savepointInfo,omitempty"`
	// CheckpointInfo tracks triggered and completed checkpoints.
	// +optional
	CheckpointInfo *CheckpointInfo `json:"checkpointInfo,omitempty"`
}

// SnapshotTriggerType says what caused a savepoint or checkpoint.
// +kubebuilder:validation:Enum=MANUAL;PERIODIC;UNKNOWN;UPGRADE
type SnapshotTriggerType string

// The snapshot trigger types.
const (
	SnapshotTriggerManual   SnapshotTriggerType = "MANUAL"
	SnapshotTriggerPeriodic SnapshotTriggerType = "PERIODIC"
	SnapshotTriggerUnknown  SnapshotTriggerType = "UNKNOWN"
	SnapshotTriggerUpgrade  SnapshotTriggerType = "UPGRADE"
)

// SavepointFormatType is the binary format of a savepoint.
// +kubebuilder:validation:Enum=CANONICAL;NATIVE;UNKNOWN
type SavepointFormatType string

// CheckpointFormatType is the kind of a checkpoint.
// +kubebuilder:validation:Enum=FULL;INCREMENTAL;UNKNOWN
type CheckpointFormatType string

// Savepoint is one completed savepoint.
type Savepoint struct {
	// TimeStamp is when the savepoint completed, epoch milliseconds.
	// +optional
	TimeStamp int64 `json:"timeStamp,omitempty"`
	// Location is the savepoint's external path.
	// +optional
	Location string `json:"location,omitempty"`
	// TriggerType says what caused the savepoint.
	// +optional
	TriggerType SnapshotTriggerType `json:"triggerType,omitempty"`
	// FormatType is the savepoint's format.
	// +optional
	FormatType SavepointFormatType `json:"formatType,omitempty"`
	// TriggerNonce is the savepointTriggerNonce that asked for it, for manual savepoints.
	// +optional
	TriggerNonce *int64 `json:"triggerNonce,omitempty"`
}

// SavepointInfo tracks the savepoints of a job.
type SavepointInfo struct {
	// LastSavepoint is the newest completed savepoint.
	// +optional
	LastSavepoint *Savepoint `json:"lastSavepoint,omitempty"`
	// TriggerID is Flink's id of the savepoint in progress.
	// +optional
	TriggerID string `json:"triggerId,omitempty"`
	// TriggerTimestamp is when the savepoint in progress was triggered, epoch milliseconds.
	// +optional
	TriggerTimestamp *int64 `json:"triggerTimestamp,omitempty"`
	// TriggerType says what caused the savepoint in progress.
	// +optional
	TriggerType SnapshotTriggerType `json:"triggerType,omitempty"`
	// FormatType is the format of the savepoint in progress.
	// +optional
	FormatType SavepointFormatType `json:"formatType,omitempty"`
	// SavepointHistory lists completed savepoints, oldest first, trimmed by the
	// kubernetes.operator.savepoint.history.* options.
	// +optional
	SavepointHistory []Savepoint `json:"savepointHistory,omitempty"`
	// LastPeriodicSavepointTimestamp is when the last periodic savepoint was taken.
	// +optional
	LastPeriodicSavepointTimestamp int64 `json:"lastPeriodicSavepointTimestamp,omitempty"`
}

// Checkpoint is one completed, operator-triggered checkpoint.
type Checkpoint struct {
	// TimeStamp is when the checkpoint completed, epoch milliseconds.
	// +optional
	TimeStamp int64 `json:"timeStamp,omitempty"`
	// TriggerType says what caused the checkpoint.
	// +optional
	TriggerType SnapshotTriggerType `json:"triggerType,omitempty"`
	// FormatType is the checkpoint's kind.
	// +optional
	FormatType CheckpointFormatType `json:"formatType,omitempty"`
	// TriggerNonce is the checkpointTriggerNonce that asked for it.
	// +optional
	TriggerNonce *int64 `json:"triggerNonce,omitempty"`
}

// CheckpointInfo tracks operator-triggered checkpoints of a job.
type CheckpointInfo struct {
	// LastCheckpoint is the newest completed operator-triggered checkpoint.
	// +optional
	LastCheckpoint *Checkpoint `json:"lastCheckpoint,omitempty"`
	// TriggerID is Flink's id of the checkpoint in progress.
	// +optional
	TriggerID string `json:"triggerId,omitempty"`
	// TriggerTimestamp is when the checkpoint in progress was triggered, epoch milliseconds.
	// +optional
	TriggerTimestamp *int64 `json:"triggerTimestamp,omitempty"`
	// TriggerType says what caused the checkpoint in progress.
	// +optional
	TriggerType SnapshotTriggerType `json:"triggerType,omitempty"`
	// FormatType is the kind of the checkpoint in progress.
	// +optional
	FormatType CheckpointFormatType `json:"formatType,omitempty"`
	// LastPeriodicCheckpointTimestamp is when the last periodic checkpoint was taken.
	// +optional
	LastPeriodicCheckpointTimestamp int64 `json:"lastPeriodicCheckpointTimestamp,omitempty"`
}

// ReconciliationState is the state of the last reconciliation.
// +kubebuilder:validation:Enum=DEPLOYED;ROLLED_BACK;ROLLING_BACK;UPGRADING
type ReconciliationState string

// The reconciliation states.
const (
	ReconciliationDeployed    ReconciliationState = "DEPLOYED"
	ReconciliationRolledBack  ReconciliationState = "ROLLED_BACK"
	ReconciliationRollingBack ReconciliationState = "ROLLING_BACK"
	ReconciliationUpgrading   ReconciliationState = "UPGRADING"
)

// ReconciliationStatus records what the operator last deployed. It is the operator's
// write-ahead log: the target spec is written here, with state UPGRADING, before any cluster
// action, so a restarted operator can tell what was in flight.
type ReconciliationStatus struct {
	// ReconciliationTimestamp is when the spec was last reconciled, epoch milliseconds.
	// +optional
	ReconciliationTimestamp int64 `json:"reconciliationTimestamp,omitempty"`
	// LastReconciledSpec is the JSON of the spec last deployed (or being deployed).
	// +optional
	LastReconciledSpec string `json:"lastReconciledSpec,omitempty"`
	// LastStableSpec is the JSON of the last spec that became stable; rollback returns to it.
	// +optional
	LastStableSpec string `json:"lastStableSpec,omitempty"`
	// State is the state of the last reconciliation.
	// +optional
	State ReconciliationState `json:"state,omitempty"`
}

// LifecycleState is the summary of a resource's life, computed from the other status fields.
// +kubebuilder:validation:Enum=CREATED;DELETED;DELETING;DEPLOYED;FAILED;ROLLED_BACK;ROLLING_BACK;STABLE;SUSPENDED;UPGRADING
type LifecycleState string

// The lifecycle states.
const (
	LifecycleCreated     LifecycleState = "CREATED"
	LifecycleDeleted     LifecycleState = "DELETED"
	LifecycleDeleting    LifecycleState = "DELETING"
	LifecycleDeployed    LifecycleState = "DEPLOYED"
	LifecycleFailed      LifecycleState = "FAILED"
	LifecycleRolledBack  LifecycleState = "ROLLED_BACK"
	LifecycleRollingBack LifecycleState = "ROLLING_BACK"
	LifecycleStable      LifecycleState = "STABLE"
	LifecycleSuspended   LifecycleState = "SUSPENDED"
	LifecycleUpgrading   LifecycleState = "UPGRADING"
)

// CommonStatus holds the status fields FlinkDeployment and FlinkSessionJob share.
type CommonStatus struct {
	// JobStatus is the observed state of the job.
	// +optional
	JobStatus JobStatus `json:"jobStatus,omitempty"`
	// Error is the last error: for FlinkDeployments and FlinkSessionJobs the JSON object the
	// Apache operator writes (type, message, additionalMetadata, throwableList; see
	// FlinkResourceException), for the other kinds a message. Every error also leaves a
	// Warning Event with its message.
	// +optional
	Error string `json:"error,omitempty"`
	// ObservedGeneration is the metadata.generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// LifecycleState summarises the resource's life.
	// +optional
	LifecycleState LifecycleState `json:"lifecycleState,omitempty"`
	// ReconciliationStatus records what the operator last deployed.
	// +optional
	ReconciliationStatus ReconciliationStatus `json:"reconciliationStatus,omitempty"`
	// Conditions are the standard Kubernetes conditions: Ready, Reconciling and Running.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}
