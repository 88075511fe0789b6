package decide

import (
	"fmt"
	"slices"
	"strings"
)

// Reason is one reason of the Events the operator records: its name, the type of Event it is
// recorded with, the resources it is recorded on and what it means. A Warning's reason is
// also the Ready condition's reason while the error it reports is in status.error.
type Reason struct {
	// Name is the reason, as Events and the Ready condition carry it.
	Name string
	// Type is the Events' type: Normal or Warning.
	Type EventType
	// On names the kinds whose Events carry it.
	On string
	// Meaning says what happened.
	Meaning string
}

// Where a reason is recorded.
const (
	onDeployment = "FlinkDeployment"
	onSessionJob = "FlinkSessionJob"
	onJobs       = "FlinkDeployment, FlinkSessionJob"
	onSnapshot   = "FlinkStateSnapshot"
	onBlueGreen  = "FlinkBlueGreenDeployment"
	onCron       = "FlinkDeployment (cron template)"
)

// Reasons is the catalogue of every Event reason the operator records, sorted by name. A test
// checks that every reason the operator's code names is here, and the harness that every
// Event recorded in a scenario has a reason from here; docs/events.md is generated from it.
var Reasons = []Reason{
	{"ActionFailed", Warning, onJobs + ", " + onSnapshot + ", " + onBlueGreen, "an action (deploy, submit, savepoint, cancel, delete, …) failed; it is retried with backoff, and a permanent failure is also put in status.error"},
	{"AutoscalerError", Warning, onDeployment, "the autoscaler could not evaluate or apply its decision (metrics missing, state unreadable, …); the job keeps its parallelism"},
	{"AutoscalerReset", Normal, onDeployment, "the autoscaler's state is cleared: it was turned off (its state ConfigMap is deleted), or autoscalerResetNonce changed"},
	{"AwaitingJobManager", Normal, onDeployment, "the JobManager REST API does not answer just after a savepoint completed; the upgrade waits a while for it to tell whether HA metadata holds a newer checkpoint"},
	{"BlueGreenAborted", Warning, onBlueGreen, "the new deployment did not become ready in time; the switch is aborted and the old one stays active"},
	{"BlueGreenActive", Normal, onBlueGreen, "the new deployment is active (the switch completed)"},
	{"BlueGreenDeploying", Normal, onBlueGreen, "a child FlinkDeployment is deployed, or its spec replaced"},
	{"BlueGreenFailed", Warning, onBlueGreen, "the blue/green deployment cannot proceed (a child or Ingress it does not own, no savepoint directory, a child deleted, …)"},
	{"BlueGreenIngress", Normal, onBlueGreen, "the Ingress now routes to the active child"},
	{"BlueGreenSavepoint", Normal, onBlueGreen, "a savepoint of the active child is taken for the switch"},
	{"BlueGreenSuspended", Normal, onBlueGreen, "the blue/green deployment is suspended"},
	{"Cancel", Normal, onJobs, "the running job is cancelled to upgrade it"},
	{"CheckpointCompleted", Normal, onJobs, "a checkpoint the operator triggered completed"},
	{"CheckpointError", Warning, onJobs, "a checkpoint could not be triggered or failed"},
	{"CheckpointFallback", Normal, onJobs, "the savepoint for an upgrade failed or cannot be taken; the job restores its newest checkpoint instead"},
	{"CheckpointTooOld", Normal, onJobs, "the newest checkpoint is older than kubernetes.operator.job.upgrade.last-state.max.allowed.checkpoint.age; the last-state upgrade takes a savepoint instead"},
	{"CheckpointTriggered", Normal, onJobs, "a checkpoint was triggered (checkpointTriggerNonce or periodic)"},
	{"Cleanup", Normal, onJobs + ", " + onCron, "the operator deletes what it no longer needs (a cluster, HA metadata, a jar, a finished cron run, …)"},
	{"CleanupFailed", Warning, onSnapshot, "disposing of a snapshot's savepoint failed"},
	{"CronMissed", Warning, onCron, "fire times passed while the operator was not running; only the latest is handled"},
	{"CronRun", Normal, onCron, "a cron run was created"},
	{"CronRunEnded", Normal, onCron, "a cron run finished"},
	{"CronScheduled", Normal, onCron, "the schedule was read; runs start at its fire times (UTC)"},
	{"CronSkipped", Warning, onCron, "a fire time was skipped: the template is suspended, the run is later than its starting deadline, or a run is still active under concurrency policy Forbid"},
	{"CronUnscheduled", Normal, onCron, "the schedule annotation was removed; no new runs start"},
	{"Deploy", Normal, onDeployment, "the Flink cluster is deployed (ConfigMap, Services, JobManager and TaskManager Deployments)"},
	{"Ingress", Normal, onDeployment, "the web UI Ingress is created, updated or deleted"},
	{"IngressManagement", Warning, onDeployment + ", " + onBlueGreen, "spec.ingress is set but kubernetes.operator.ingress.manage is false: the operator creates, updates and deletes no Ingress"},
	{"IngressRefused", Warning, onDeployment + ", " + onBlueGreen, "spec.ingress renders a host or an annotation the operator's Ingress policy (kubernetes.operator.ingress.*) does not allow; the Ingress is neither created nor updated (one already there stays as it is), the rest is reconciled"},
	{"InvalidCron", Warning, onDeployment, "the cron schedule or its settings cannot be used, or a schedule annotation is ignored on a FlinkDeployment that is not a cron template"},
	{"InvalidOptions", Warning, onJobs, "the resource's kubernetes.operator.* options cannot be read; status.error names them"},
	{"JobException", Warning, onJobs, "a new entry of the job's exception history (the job restarted or failed): its task, the first lines of its stack trace and its root cause (the last `Caused by:`); at most kubernetes.operator.events.exceptions.limit-per-reconciliation a reconcile"},
	{"JobFailed", Warning, onJobs, "the Flink job failed; the message is Flink's root cause"},
	{"JobManagerDeploymentMissing", Warning, onDeployment, "the JobManager Deployment is gone and cannot be deployed again: kubernetes.operator.jm-deployment-recovery.enabled is false, or high availability is off, or the job's HA metadata is gone too"},
	{"JobManagerDeploymentStatusChanged", Normal, onDeployment, "status.jobManagerDeploymentStatus changed (DEPLOYING, READY, ERROR, …)"},
	{"JobManagerReachable", Normal, onDeployment, "the JobManager REST API answers again after being unreachable"},
	{"JobManagerUnreachable", Warning, onDeployment, "the JobManager REST API does not answer; the operator backs off for this cluster"},
	{"JobMissing", Warning, onSessionJob, "the job recorded in status is no longer on the session cluster"},
	{"JobStatusChanged", Normal, onJobs, "status.jobStatus.state changed"},
	{"LastStateFallback", Normal, onDeployment, "the job is not running, so no savepoint can be taken; the upgrade restores last state from HA metadata"},
	{"NotASessionCluster", Warning, onSessionJob, "deploymentName names a FlinkDeployment that runs an application job"},
	{"OptionNotApplied", Warning, onDeployment, "flinkConfiguration sets a Flink kubernetes.* option the operator does not apply (named, with why; docs/flink-contract.md)"},
	{"RecoverDeployment", Normal, onDeployment, "the JobManager Deployment was missing and is deployed again (JobManager recovery)"},
	{"ReplicaFailure", Warning, onDeployment, "the JobManager Deployment cannot create its pods (quota, admission, …)"},
	{"RestartFailedJob", Warning, onJobs, "the failed job is restarted (kubernetes.operator.job.restart.failed)"},
	{"RestartUnhealthyJob", Warning, onDeployment, "the job is unhealthy (restarts, checkpoints) and is restarted (kubernetes.operator.cluster.health-check.enabled)"},
	{"RestorePoint", Normal, onSessionJob, "the new job restores the named savepoint or checkpoint"},
	{"Rollback", Warning, onDeployment, "the new spec did not become stable in time; rolling back to the last stable spec"},
	{"RollbackImpossible", Warning, onDeployment, "the new spec is not stable, but there is no state to roll back with"},
	{"SavepointAhead", Normal, onDeployment, "a savepoint is newer than the checkpoint HA recovery would restore; the job is cancelled to restore the newest snapshot"},
	{"SavepointCompleted", Normal, onJobs, "a savepoint completed"},
	{"SavepointDisposed", Normal, onJobs, "a savepoint trimmed from the history is disposed of"},
	{"SavepointError", Warning, onJobs, "a savepoint could not be triggered or failed"},
	{"SavepointRecovered", Normal, onDeployment, "the job finished with a savepoint status did not record; it is restored from"},
	{"SavepointTriggered", Normal, onJobs, "a savepoint was triggered (savepointTriggerNonce, periodic, upgrade or suspend)"},
	{"Scaling", Normal, onDeployment, "the cluster or job is rescaled in place"},
	{"ScalingReport", Normal, onDeployment, "the autoscaler's evaluation: per vertex, the parallelism it chose and why"},
	{"SessionClusterDeleting", Warning, onSessionJob, "the session cluster is being deleted"},
	{"SessionClusterMissing", Warning, onSessionJob, "deploymentName names no FlinkDeployment"},
	{"SessionClusterNotReady", Warning, onSessionJob, "the session cluster is not ready; the job waits"},
	{"SessionJobsExist", Warning, onDeployment, "deleting a session cluster waits until its FlinkSessionJobs are deleted (kubernetes.operator.session.deletion.block-on-session-jobs)"},
	{"SnapshotAbandoned", Warning, onSnapshot, "the snapshot cannot complete: its job was not found or is not running"},
	{"SnapshotCompleted", Normal, onSnapshot, "the snapshot completed, or an existing savepoint was recorded"},
	{"SnapshotDisposed", Normal, onSnapshot, "the snapshot's savepoint is disposed of as the resource is deleted"},
	{"SnapshotTriggered", Normal, onSnapshot, "the snapshot was triggered on its job"},
	{"SpecChanged", Normal, onJobs, "the spec changed: the kind of change and each value, old and new"},
	{"SpecInvalid", Warning, onBlueGreen, "the blue/green spec is invalid; the children are left as they are"},
	{"StatusCorrupt", Warning, onJobs, "status cannot be read (a reconciled spec that does not parse); the message says what to change"},
	{"StatusTooLarge", Warning, onJobs, "the status write was refused as too large; the error cannot be put in status.error"},
	{"Submit", Normal, onJobs, "the job is submitted, or the first deployment starts"},
	{"Submitted", Normal, onSessionJob, "the job is already on the session cluster; it is not submitted again"},
	{"Suspended", Normal, onJobs, "the job is suspended"},
	{"UnknownOption", Warning, onJobs, "a kubernetes.operator.* or job.autoscaler.* key nothing reads; the message names the nearest option"},
	{"UnmanagedJobsExist", Warning, onDeployment, "deleting a session cluster waits until the jobs it runs that no FlinkSessionJob manages end (kubernetes.operator.session.deletion.block-on-unmanaged-jobs)"},
	{"UpgradeRefused", Warning, onJobs, "the upgrade cannot be done as asked (no savepoint directory, no HA for last-state, …); the message says what to change"},
	{"UpgradeWaiting", Warning, onDeployment, "a savepoint upgrade waits for the JobManager REST API"},
	{"ValidationError", Warning, onJobs + ", " + onSnapshot, "the spec is invalid; nothing is deployed until it is fixed"},
}

// PodProblems are the container waiting reasons of a JobManager pod that need a person; the
// operator reports one with the kubelet's reason as its Warning's reason, as it reports
// OOMKilled for a container killed for its memory.
var PodProblems = []string{"CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "CreateContainerConfigError", "CreateContainerError", "InvalidImageName"}

// ReasonOOMKilled is the Warning's reason for a JobManager container killed for its memory.
const ReasonOOMKilled = "OOMKilled"

// KnownReason reports whether name is a reason of the catalogue: Reasons, PodProblems or
// ReasonOOMKilled.
func KnownReason(name string) bool {
	if _, ok := slices.BinarySearchFunc(Reasons, name, func(r Reason, n string) int { return strings.Compare(r.Name, n) }); ok {
		return true
	}
	return name == ReasonOOMKilled || slices.Contains(PodProblems, name)
}

// ReasonsMarkdown is the catalogue as docs/events.md carries it: a table of Reasons, then
// the JobManager pod reasons.
func ReasonsMarkdown() string {
	var b strings.Builder
	b.WriteString("| reason | type | recorded on | meaning |\n|---|---|---|---|\n")
	for _, r := range Reasons {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", r.Name, r.Type, r.On, strings.ReplaceAll(r.Meaning, "|", `\|`))
	}
	quoted := make([]string, 0, len(PodProblems)+1)
	for _, p := range append(slices.Clone(PodProblems), ReasonOOMKilled) {
		quoted = append(quoted, "`"+p+"`")
	}
	fmt.Fprintf(&b, "\nA failing JobManager pod is reported as a Warning on the FlinkDeployment with the kubelet's own reason: %s.\n",
		strings.Join(quoted, ", "))
	return b.String()
}

// ReasonAutoscalerError is the Warning's reason for an autoscaler that could not evaluate or
// apply its decision (the operator's metrics count them per resource).
const ReasonAutoscalerError = "AutoscalerError"
