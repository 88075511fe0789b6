package sessionjob

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"strings"
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/decide"
)

// ClusterState is what a session job sees of its session cluster.
type ClusterState string

// The cluster states.
const (
	// ClusterMissing: no FlinkDeployment of spec.deploymentName exists.
	ClusterMissing ClusterState = "Missing"
	// ClusterNotSession: the FlinkDeployment runs an application job, not a session cluster.
	ClusterNotSession ClusterState = "NotSession"
	// ClusterNotReady: the session cluster exists but its JobManager is not READY.
	ClusterNotReady ClusterState = "NotReady"
	// ClusterReady: the session cluster's JobManager is READY.
	ClusterReady ClusterState = "Ready"
)

// Observation is what the operator saw of one FlinkSessionJob's session cluster and job.
type Observation struct {
	// RESTDeferred: as decide.Observation's (a REST answer found the answer budget spent).
	RESTDeferred bool
	// Cluster is the session cluster's state; ClusterMessage says why it is not ready.
	Cluster        ClusterState
	ClusterMessage string
	// ClusterDeleting is set when the session FlinkDeployment is being deleted.
	ClusterDeleting bool
	// RESTReachable says whether the JobManager's REST API answered; RESTError says why not.
	RESTReachable bool
	RESTError     string
	// Job is the job with the id recorded in status.jobStatus.jobId; nil when the cluster
	// does not know it.
	Job *decide.JobObservation
	// Savepoint and Checkpoint are the state of the pending triggers recorded in status.
	Savepoint  *decide.OperationObservation
	Checkpoint *decide.OperationObservation
	// Jars are the jars this session job uploaded that are still on the cluster.
	Jars []Jar
	// FlinkVersion is the session cluster's spec.flinkVersion.
	FlinkVersion flinkv1beta1.FlinkVersion
	// TakenSavepoint is the newest savepoint a FlinkStateSnapshot took of the job (nil: none).
	TakenSavepoint *decide.TakenSavepoint
}

// Jar is an uploaded jar.
type Jar struct {
	ID, Name string
}

// Input is everything Decide reads.
type Input struct {
	// Resource is the FlinkSessionJob as read, with its current status.
	Resource *flinkv1beta1.FlinkSessionJob
	// Options are the operator options with the session cluster's and the job's overrides.
	Options config.Options
	// Observed is what was observed.
	Observed Observation
	// Now is the current time (from the injected clock).
	Now time.Time
	// NoSnapshotSlot says every fleet-wide snapshot slot is taken (see decide.Input).
	NoSnapshotSlot bool
}

// Result is what Decide chose: one action, the new status, the events and when to look again.
type Result struct {
	Action       Action
	Status       flinkv1beta1.FlinkSessionJobStatus
	Events       []decide.Event
	RequeueAfter time.Duration
	// RemoveFinalizer is set when deletion is complete.
	RemoveFinalizer bool
	// Records are the snapshot resources that record savepoints, written before Status.
	Records decide.Records
}

// The actions of session jobs besides decide's job actions (ActCancelJob,
// ActStopWithSavepoint, ActTriggerSavepoint, ActTriggerCheckpoint, ActDisposeSavepoint).
const (
	// ActSubmitJob uploads the job's jar (unless it is a local:// jar or already uploaded)
	// and runs it under Submit.JobID.
	ActSubmitJob decide.ActionKind = "SubmitJob"
	// ActDeleteJars deletes the uploaded jars JarIDs.
	ActDeleteJars decide.ActionKind = "DeleteJars"
)

// Action is the one change of a reconcile.
type Action struct {
	Kind decide.ActionKind
	// JobID, TriggerID and FormatType are set for job actions.
	JobID, TriggerID, FormatType string
	// Drain makes decide.ActStopWithSavepoint drain the job first.
	Drain bool
	// Submit is set for ActSubmitJob.
	Submit *Submit
	// JarIDs are the jars ActDeleteJars deletes.
	JarIDs []string
	// Path is the savepoint decide.ActDisposeSavepoint disposes of.
	Path string
}

// jobAction is one of decide's job actions (a snapshot trigger, a stop with savepoint) as a
// session job action.
func jobAction(a decide.Action) Action {
	return Action{Kind: a.Kind, JobID: a.JobID, TriggerID: a.TriggerID, FormatType: a.FormatType, Drain: a.Drain, Path: a.Path}
}

// None is the action that changes nothing.
var None = Action{Kind: decide.ActNone}

// Submit is a job to run on the session cluster.
type Submit struct {
	// Job is the job spec (jar, entry class, arguments, parallelism, allowNonRestoredState).
	Job flinkv1beta1.JobSpec
	// Configuration is the job's flattened flinkConfiguration.
	Configuration map[string]string
	// JobID is the id the job runs under, chosen by the operator and recorded in status first.
	JobID string
	// RestorePath is the savepoint or checkpoint to start from; "" for empty state.
	RestorePath string
	// JarName is the name an uploaded jar gets (see JarName).
	JarName string
	// CredentialsSecret names the Secret (in the job's namespace) whose credentials fetch
	// an https jar ("" for none; see AnnotationJarCredentials). Only the name: the executor
	// reads the Secret when it fetches.
	CredentialsSecret string
}

// AnnotationJarCredentials on a FlinkSessionJob names a Secret in its namespace with the
// credentials of its https jar: key "authorization" (the whole Authorization header value,
// e.g. "Bearer …"), or keys "username" and "password" (Basic). The Secret must carry the label
// LabelJarCredentials: "true", so that only Secrets made for this purpose can be sent.
const (
	AnnotationJarCredentials = "flinkop.io/jar-credentials-secret"
	LabelJarCredentials      = "flinkop.io/jar-credentials"
)

// ReconciledSpec is the JSON stored in reconciliationStatus.lastReconciledSpec and
// lastStableSpec of a FlinkSessionJob, shaped as the Apache operator stores it.
type ReconciledSpec struct {
	Spec     flinkv1beta1.FlinkSessionJobSpec `json:"spec"`
	Metadata decide.SpecMetadata              `json:"resource_metadata"`
}

// Generation is the resource generation the spec belongs to.
func (r *ReconciledSpec) Generation() int64 { return r.Metadata.Metadata.Generation }

// Encode renders the JSON stored in status.
func (r *ReconciledSpec) Encode() string { return decide.EncodeStored(r) }

// ParseReconciledSpec reads a stored spec; "" gives nil.
func ParseReconciledSpec(s string) (*ReconciledSpec, error) {
	return decide.ParseStored[ReconciledSpec](s)
}

// JarPrefix starts the names of the jars a session job uploads; it tells them apart from
// other jars on the session cluster.
func JarPrefix(uid string) string {
	sum := sha256.Sum256([]byte(uid))
	return "flinkop-" + hex.EncodeToString(sum[:4]) + "-"
}

// JarName is the name of the jar uploaded for job jobID: the prefix, the job id's first
// eight characters and the jar's file name. A retried submission finds the jar by it.
func JarName(uid, jobID, jarURI string) string {
	return JarPrefix(uid) + jobID[:min(8, len(jobID))] + "-" + path.Base(jarURI)
}

// IsLocalJar reports whether the jar is already on the session cluster (local://).
func IsLocalJar(jarURI string) bool { return strings.HasPrefix(jarURI, "local://") }
