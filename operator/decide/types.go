package decide

import (
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/autoscaler"
	"github.com/flinkop/flinkop/operator/config"
)

// Observation is everything the operator saw of one FlinkDeployment's cluster in one
// reconcile. It is plain data: observe fills it, decide reads it.
type Observation struct {
	// JobManager and TaskManager are the Deployments; nil when missing.
	JobManager  *DeploymentState
	TaskManager *DeploymentState
	// PodError is a JobManager pod problem (CrashLoopBackOff, ImagePullBackOff, OOMKilled, …).
	PodError *PodError
	// RESTReachable says whether the JobManager's REST API answered; RESTError says why not.
	RESTReachable bool
	// RESTDeferred says a REST answer could not be read within the operator's answer budget
	// (flink.ErrAnswerBudget): what it would have told is unknown, so the reconcile decides
	// nothing and looks again after AnswerBudgetRetry.
	RESTDeferred bool
	RESTError    string
	// Job is the resource's job on the cluster, nil when there is none.
	Job *JobObservation
	// Savepoint and Checkpoint are the state of the pending triggers recorded in status.
	Savepoint  *OperationObservation
	Checkpoint *OperationObservation
	// HAMetadata reports whether Flink's HA ConfigMaps for the cluster exist.
	HAMetadata bool
	// JobManagerNeverStarted is true when the JobManager Deployment exists but none of its
	// pods ever ran its container (a bad image, say): a savepoint upgrade then left no newer
	// state than its savepoint, so a rollback may restore from it.
	JobManagerNeverStarted bool
	// SessionJobs names the FlinkSessionJobs that target this (session) deployment.
	SessionJobs []string
	// UnmanagedJobs are the ids of the jobs a deleted session cluster still runs (not
	// globally terminal), as its REST API lists them (at most MaxListedJobs).
	UnmanagedJobs []string
	// TakenSavepoint is the newest savepoint a FlinkStateSnapshot took of the job (nil: none,
	// or snapshot resources off).
	TakenSavepoint *TakenSavepoint
	// Ingress is the web UI Ingress, nil when there is none.
	Ingress *IngressState
	// Leftovers names the other objects the resource still owns (Deployments, Services,
	// ConfigMaps, JobManager pods, the Ingress), as kind/name.
	Leftovers []string
	// Version is the JobManager's GET /config version and revision, read once per deploy
	// (while status.clusterInfo has no flink-version); nil when not read.
	Version *FlinkVersionInfo
	// Autoscaler is what the autoscaler of an autoscaled job needs; nil when it is off.
	Autoscaler *AutoscalerObservation
	// AutoscalerStateLeft is true when the autoscaler is off and the resource's state
	// ConfigMap is still there (in the cache).
	AutoscalerStateLeft bool
}

// AutoscalerObservation is the autoscaler's state and what one look at the job collected.
type AutoscalerObservation struct {
	// State is the state in its ConfigMap (empty when there is none, StateFound false);
	// StateError says why a ConfigMap was not used.
	State      autoscaler.State
	StateFound bool
	StateError string
	// Collected is this look's sample (nil when the job is not running or the collection
	// failed, CollectError saying why).
	Collected    *autoscaler.Observed
	CollectError string
}

// FlinkVersionInfo is what a JobManager reports about its build.
type FlinkVersionInfo struct {
	Version, Revision string
}

// DeploymentState is an observed Deployment.
type DeploymentState struct {
	// Generation is the FlinkDeployment generation the Deployment was rendered for (its
	// generation annotation); 0 when absent.
	Generation int64
	// Run is the job run the Deployment was rendered for (its run annotation): "" for the
	// first run of a generation, else a restart or rollback (see SpecMetadata.JobRun).
	Run string
	// Replicas, ReadyReplicas and AvailableReplicas are from the Deployment's status.
	Replicas, ReadyReplicas, AvailableReplicas int32
	// Available is true when the Deployment is rolled out and has an available replica.
	Available bool
	// ReplicaFailure is the message of a ReplicaFailure condition.
	ReplicaFailure string
}

// IngressState is an observed web UI Ingress.
type IngressState struct {
	// Hash is the IngressHash it was rendered from.
	Hash string
}

// PodError is a pod problem that needs a person.
type PodError struct {
	Reason  string
	Message string
}

// TakenSavepoint is a savepoint a FlinkStateSnapshot took of a job.
type TakenSavepoint struct {
	// Name is the snapshot's; Path the savepoint's; Time when it completed (epoch ms).
	Name, Path string
	Time       int64
	// Format is the savepoint's format type.
	Format flinkv1beta1.SavepointFormatType
}

// JobObservation is the job as Flink reports it.
type JobObservation struct {
	ID, Name string
	State    string
	// StartTime is the job's start, epoch ms.
	StartTime int64
	// FailureCause is the first line of the newest exception of a FAILED job, and
	// FailureCauses the "Caused by:" lines of its whole stack trace (CauseLines).
	FailureCause  string
	FailureCauses []string
	// NumRestarts is the job's restart count (Flink's numRestarts metric), read while the
	// health check is on; nil when not read.
	NumRestarts *int64
	// Exceptions are the newest entries of the job's exception history, newest first
	// (JobExceptionEvents reports the new ones).
	Exceptions []JobException
	// Parallelism is the job's parallelism on the adaptive scheduler (its highest vertex upper
	// bound); 0 when not read.
	Parallelism int32
	// VertexParallelism is each vertex's parallelism there (its upper bound), by vertex id.
	VertexParallelism map[string]int32
	// LatestCheckpoint is the newest completed externalized checkpoint, if any.
	LatestCheckpoint *SnapshotRef
	// LatestSavepoint is the newest completed savepoint Flink reports for the job, if any
	// (its id counts with the checkpoints'). It is known even when the status write that
	// would have recorded it was lost.
	LatestSavepoint *SnapshotRef
	// SavepointInProgress says Flink's checkpoint history lists a savepoint in progress (one
	// the operator may have lost track of, or a FlinkStateSnapshot's): a new one waits for it.
	SavepointInProgress bool
}

// SnapshotRef points at a completed checkpoint or savepoint.
type SnapshotRef struct {
	Path string
	ID   int64
	// Timestamp is when it was triggered, epoch ms.
	Timestamp int64
}

// Restorable reports whether the snapshot can be restored by its path (a checkpoint without
// a checkpoint directory has none: Flink reports "<checkpoint-not-externally-addressable>").
func (r *SnapshotRef) Restorable() bool { return r != nil && r.Path != "" && r.Path[0] != '<' }

// OperationObservation is the state of a triggered savepoint or checkpoint.
type OperationObservation struct {
	Done bool
	// Location is a completed savepoint's path.
	Location string
	// CheckpointID is a completed checkpoint's id.
	CheckpointID int64
	// Failure is set when the operation failed.
	Failure string
	// Lost is true when Flink no longer knows the trigger (expired, or the JobManager restarted).
	Lost bool
}

// Input is everything Decide reads.
type Input struct {
	// Resource is the FlinkDeployment as read, with its current status.
	Resource *flinkv1beta1.FlinkDeployment
	// Options are the operator options with the resource's overrides applied.
	Options config.Options
	// Observed is the cluster as observed.
	Observed Observation
	// Now is the current time (from the injected clock).
	Now time.Time
	// RESTFailures is how many JobManager REST probes of the resource failed in a row before
	// this reconcile (the controller counts them in memory; see RESTBackoff).
	RESTFailures int
	// NoSnapshotSlot says every fleet-wide snapshot slot is taken
	// (kubernetes.operator.snapshot.max-concurrent): a periodic snapshot that is due waits.
	NoSnapshotSlot bool
	// FlinkDefaults gives the operator's Flink defaults for a namespace and Flink version
	// (config.Live.FlinkDefaults; nil: the resource's own Spec.Defaults serve every spec): a
	// spec read from the status (a rollback's, say) gets those of its own Flink version.
	FlinkDefaults flinkv1beta1.FlinkDefaults
}

// EventType is Normal or Warning, as Kubernetes Events have it.
type EventType string

// The event types.
const (
	Normal  EventType = "Normal"
	Warning EventType = "Warning"
)

// Event is a Kubernetes Event to record.
type Event struct {
	Type    EventType
	Reason  string
	Message string
}

// Result is what Decide chose: one action, the new status, the events and when to look again.
type Result struct {
	Action       Action
	Status       flinkv1beta1.FlinkDeploymentStatus
	Events       []Event
	RequeueAfter time.Duration
	// RemoveFinalizer is set when deletion is complete.
	RemoveFinalizer bool
	// Records are the snapshot resources that record savepoints, written before Status.
	Records Records
	// Autoscaler is the autoscaler's decision at this look and the job's vertices, when it
	// evaluated the job's metrics (for its metrics; nil otherwise).
	Autoscaler *AutoscalerLook
}

// AutoscalerLook is one evaluation of the autoscaler: the job's vertices and the decision.
type AutoscalerLook struct {
	Topology []autoscaler.Vertex
	Decision autoscaler.Decision
}

// ActionKind names an action.
type ActionKind string

// The actions.
const (
	// ActNone changes nothing in the cluster (a status change may still be written).
	ActNone ActionKind = "None"
	// ActDeploy creates or updates the cluster's objects for Deploy.
	ActDeploy ActionKind = "Deploy"
	// ActDeleteCluster deletes the JobManager and TaskManager Deployments (and HA metadata when
	// DeleteHA is set).
	ActDeleteCluster ActionKind = "DeleteCluster"
	// ActDeleteAll deletes every object the resource owns, HA metadata included (deletion).
	ActDeleteAll ActionKind = "DeleteAll"
	// ActCancelJob cancels JobID.
	ActCancelJob ActionKind = "CancelJob"
	// ActStopWithSavepoint stops JobID with a savepoint under TriggerID.
	ActStopWithSavepoint ActionKind = "StopWithSavepoint"
	// ActTriggerSavepoint takes a savepoint of JobID under TriggerID.
	ActTriggerSavepoint ActionKind = "TriggerSavepoint"
	// ActTriggerCheckpoint takes a checkpoint of JobID under TriggerID.
	ActTriggerCheckpoint ActionKind = "TriggerCheckpoint"
	// ActDisposeSavepoint deletes the savepoint at Path (POST /savepoint-disposal).
	ActDisposeSavepoint ActionKind = "DisposeSavepoint"
	// ActApplyIngress creates or updates the web UI Ingress from Ingress.
	ActApplyIngress ActionKind = "ApplyIngress"
	// ActDeleteIngress deletes the web UI Ingress.
	ActDeleteIngress ActionKind = "DeleteIngress"
	// ActScale resizes the TaskManager Deployment for Deploy's spec and, when Parallelism is
	// set, rescales JobID through Flink's resource requirements (Overrides per vertex).
	ActScale ActionKind = "Scale"
	// ActSaveAutoscalerState writes the autoscaler's state ConfigMap.
	ActSaveAutoscalerState ActionKind = "SaveAutoscalerState"
	// ActDeleteAutoscalerState deletes it.
	ActDeleteAutoscalerState ActionKind = "DeleteAutoscalerState"
)

// Action is the one cluster change of a reconcile.
type Action struct {
	Kind ActionKind
	// Deploy is set for ActDeploy.
	Deploy *Deploy
	// JobID and TriggerID are set for job actions.
	JobID, TriggerID string
	// FormatType is the savepoint format.
	FormatType string
	// Drain makes ActStopWithSavepoint drain the job first (MAX_WATERMARK).
	Drain bool
	// DeleteHA is set for ActDeleteCluster when HA metadata goes too.
	DeleteHA bool
	// Path is the savepoint ActDisposeSavepoint deletes.
	Path string
	// Ingress is the spec ActApplyIngress renders.
	Ingress *flinkv1beta1.IngressSpec
	// Parallelism and Overrides (vertex id → parallelism) are ActScale's new parallelism.
	Parallelism int32
	Overrides   map[string]int32
	// AutoscalerState is the data of the autoscaler's state ConfigMap (ActSaveAutoscalerState).
	AutoscalerState map[string]string
}

// Deploy is a cluster to create or update.
type Deploy struct {
	Spec       flinkv1beta1.FlinkDeploymentSpec
	Generation int64
	// Run distinguishes a restart or rollback of the same generation (see SpecMetadata.JobRun).
	Run         string
	JobID       string
	RestorePath string
}

// None is the action that changes nothing.
var None = Action{Kind: ActNone}
