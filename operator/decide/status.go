package decide

import (
	"cmp"
	"fmt"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// observeStatus copies what was observed into status: the JobManager deployment state
// (DEPLOYING → DEPLOYED_NOT_READY → READY, ERROR, MISSING) and the job.
func (s *step) observeStatus() {
	o := s.in.Observed
	st := s.st
	prevJM := st.JobManagerDeploymentStatus
	switch {
	case o.JobManager == nil:
		st.JobManagerDeploymentStatus = flinkv1beta1.JobManagerMissing
	case o.PodError != nil:
		st.JobManagerDeploymentStatus = flinkv1beta1.JobManagerError
		s.report.FailDeployment(o.PodError.Reason, fmt.Sprintf("JobManager pod failing: %s: %s", o.PodError.Reason, o.PodError.Message))
	case o.JobManager.ReplicaFailure != "":
		st.JobManagerDeploymentStatus = flinkv1beta1.JobManagerError
		s.report.FailDeployment("ReplicaFailure", "JobManager deployment failing: "+o.JobManager.ReplicaFailure)
	case !o.JobManager.Available:
		st.JobManagerDeploymentStatus = flinkv1beta1.JobManagerDeploying
	case !o.RESTReachable:
		st.JobManagerDeploymentStatus = flinkv1beta1.JobManagerDeployedNotReady
	default:
		st.JobManagerDeploymentStatus = flinkv1beta1.JobManagerReady
	}
	if st.JobManagerDeploymentStatus == flinkv1beta1.JobManagerReady && s.last != nil && !s.last.Metadata.JobManagerStarted &&
		st.ReconciliationStatus.State == flinkv1beta1.ReconciliationDeployed {
		s.last.Metadata.JobManagerStarted = true
		s.recordIgnorable()
	}
	if prevJM != st.JobManagerDeploymentStatus && prevJM != "" {
		s.event(Normal, "JobManagerDeploymentStatusChanged", fmt.Sprintf("JobManager deployment status changed from %s to %s", prevJM, st.JobManagerDeploymentStatus))
	}
	switch n, native := s.nativeTaskManagers(); {
	case native:
		st.TaskManager = s.taskManagerInfo(n)
	case o.TaskManager != nil:
		st.TaskManager = s.taskManagerInfo(o.TaskManager.Replicas)
	default:
		st.TaskManager = nil
	}
	s.clusterInfo()
	s.observeJob()
}

// deploying is the status of a deploy under way: the JobManager deploying and, unless
// TaskManagers are already seen (a deploy done again), status.taskManager of the TaskManager
// Deployment the deploy creates (of a native cluster: the TaskManagers its job needs). Written with the deploy, it is what the next look sees (no
// pods yet), so that look writes no status of its own.
func (s *step) deploying() {
	s.st.JobManagerDeploymentStatus = flinkv1beta1.JobManagerDeploying
	if n, native := s.nativeTaskManagers(); native {
		s.st.TaskManager = s.taskManagerInfo(n)
	} else if s.in.Observed.TaskManager == nil {
		s.st.TaskManager = s.taskManagerInfo(0)
	}
}

// nativeTaskManagers is, for a native cluster of the last deployed spec, the TaskManagers its
// job needs (parallelism over slots), as the Apache operator reports them
// (ReconciliationUtils#getTaskManagerInfo: Flink's resource manager, not a Deployment, makes
// them); native is false otherwise.
func (s *step) nativeTaskManagers() (n int32, native bool) {
	if s.last == nil || !s.last.Spec.Native() {
		return 0, false
	}
	conf, _ := s.last.Spec.Conf()
	return flinkv1beta1.TaskManagerReplicas(s.last.Spec, conf), true
}

// taskManagerInfo is status.taskManager: the scale subresource's selector of d's TaskManager
// pods, and replicas, the TaskManager Deployment's pods (its status.replicas; 0 as a deploy
// creates it).
func (s *step) taskManagerInfo(replicas int32) *flinkv1beta1.TaskManagerInfo {
	return &flinkv1beta1.TaskManagerInfo{LabelSelector: "app=" + s.d.Name + ",component=taskmanager", Replicas: replicas}
}

func (s *step) observeJob() {
	if s.in.Observed.Job == nil {
		return
	}
	if failure := ObserveJob(&s.st.JobStatus, s.in.Observed.Job, s.in.Now, &s.res.Events); failure != "" {
		s.report.FailJob(failure, FailureTrace(s.in.Observed.Job), s.in.Observed.Job.FailureCauses)
	}
}

// FailureTrace is the stack trace of a failed job's failure, the newest entry of its exception
// history ("" when unknown).
func FailureTrace(job *JobObservation) string {
	if job == nil || job.FailureCause == "" || len(job.Exceptions) == 0 {
		return ""
	}
	return job.Exceptions[0].StackTrace
}

// ObserveJob copies the job Flink reports into js (id, name, state, start time); updateTime
// and a JobStatusChanged event move with the state only, so an unchanged job writes no
// status. It returns the failure to report for a FAILED job ("" otherwise).
func ObserveJob(js *flinkv1beta1.JobStatus, job *JobObservation, now time.Time, events *[]Event) string {
	prev := js.State
	js.JobID, js.JobName = job.ID, job.Name
	js.State = flinkv1beta1.JobStatusState(job.State)
	js.StartTime = strconv.FormatInt(job.StartTime, 10)
	if prev != js.State {
		js.UpdateTime = strconv.FormatInt(now.UnixMilli(), 10)
		if prev != "" {
			*events = append(*events, Event{Type: Normal, Reason: "JobStatusChanged", Message: fmt.Sprintf("Job status changed from %s to %s", prev, js.State)})
		}
	}
	if js.State != flinkv1beta1.JobStatusFailed {
		return ""
	}
	cause := job.FailureCause
	if cause == "" {
		cause = "no failure cause reported"
	}
	return "Job " + job.ID + " failed: " + cause
}

// finish computes the lifecycle state and the conditions, reports the reconcile's error
// (status.error plus a Warning event when it is new) and clears a resolved one.
func (s *step) finish() {
	st := s.st
	s.report.Write(&st.CommonStatus, &s.res.Events, s.in.Options.Exceptions)
	st.LifecycleState = s.lifecycle()
	s.conditions()
}

// lifecycle derives the lifecycle state from the other status fields.
func (s *step) lifecycle() flinkv1beta1.LifecycleState {
	last, _ := s.stored(s.st.ReconciliationStatus.LastReconciledSpec)
	suspended := last != nil && last.Spec.Job != nil && last.Spec.Job.EffectiveState() == flinkv1beta1.JobStateSuspended
	return Lifecycle(&s.st.CommonStatus, s.d.DeletionTimestamp != nil, s.st.JobManagerDeploymentStatus == flinkv1beta1.JobManagerError, suspended)
}

// Lifecycle derives the lifecycle state from a resource's status, as the Apache operator
// does: deleting says the resource is being deleted, failing that its cluster fails (a failed
// job fails too), suspended that its reconciled job spec is suspended.
func Lifecycle(st *flinkv1beta1.CommonStatus, deleting, failing, suspended bool) flinkv1beta1.LifecycleState {
	rs := st.ReconciliationStatus
	switch {
	case deleting:
		return flinkv1beta1.LifecycleDeleting
	case rs.LastReconciledSpec == "":
		return flinkv1beta1.LifecycleCreated
	case rs.State == flinkv1beta1.ReconciliationUpgrading:
		return flinkv1beta1.LifecycleUpgrading
	case rs.State == flinkv1beta1.ReconciliationRollingBack:
		return flinkv1beta1.LifecycleRollingBack
	case st.JobStatus.State == flinkv1beta1.JobStatusFailed || failing:
		return flinkv1beta1.LifecycleFailed
	case rs.State == flinkv1beta1.ReconciliationRolledBack:
		return flinkv1beta1.LifecycleRolledBack
	case suspended:
		return flinkv1beta1.LifecycleSuspended
	case rs.LastStableSpec == rs.LastReconciledSpec:
		return flinkv1beta1.LifecycleStable
	}
	return flinkv1beta1.LifecycleDeployed
}

// conditions sets Ready, Reconciling and Running.
func (s *step) conditions() {
	msg := flinkv1beta1.ErrorMessage(s.st.Error)
	if msg == "" {
		msg = fmt.Sprintf("lifecycle state %s, JobManager %s", s.st.LifecycleState, s.st.JobManagerDeploymentStatus)
	}
	SetConditions(&s.st.CommonStatus, s.d.Generation, s.in.Now, msg, s.report.Reason())
}

// SetConditions sets the Ready, Reconciling and Running conditions from the lifecycle state,
// the error and the job state; readyMsg explains Ready. While status.error is set, Ready is
// false and its reason names the error (errReason: the reason of its Warning Event), not
// the lifecycle state.
func SetConditions(st *flinkv1beta1.CommonStatus, generation int64, now time.Time, readyMsg, errReason string) {
	set := func(t string, ok bool, reason, msg string) {
		status := metav1.ConditionFalse
		if ok {
			status = metav1.ConditionTrue
		}
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{
			Type: t, Status: status, Reason: reason, Message: msg, ObservedGeneration: generation,
			LastTransitionTime: metav1.NewTime(now),
		})
	}
	lc := st.LifecycleState
	ready := lc == flinkv1beta1.LifecycleStable || lc == flinkv1beta1.LifecycleSuspended || lc == flinkv1beta1.LifecycleRolledBack
	readyReason := string(lc)
	if st.Error != "" {
		readyReason = cmp.Or(errReason, ReasonError)
	}
	set("Ready", ready && st.Error == "", readyReason, readyMsg)
	reconciling := lc == flinkv1beta1.LifecycleUpgrading || lc == flinkv1beta1.LifecycleCreated || lc == flinkv1beta1.LifecycleDeployed ||
		lc == flinkv1beta1.LifecycleRollingBack || lc == flinkv1beta1.LifecycleDeleting
	set("Reconciling", reconciling, string(lc), "lifecycle state "+string(lc))
	running := st.JobStatus.State == flinkv1beta1.JobStatusRunning
	jobState := string(st.JobStatus.State)
	if jobState == "" {
		jobState = "NoJob"
	}
	set("Running", running, jobState, "job state "+jobState)
}

// ReasonError is the Ready condition's reason for an error reported without a reason of its own.
const ReasonError = "Error"

// FailReady marks Ready false for an error the controller sets in status.error after the
// decision (invalid operator options, a permanent action failure): reason names it, and the
// message is status.error. prev are the conditions as stored: when Ready was already false
// there, it keeps its transition time, so that a status the decision first computed with
// Ready true is written back unchanged (rather than on every reconcile).
func FailReady(st *flinkv1beta1.CommonStatus, prev []metav1.Condition, generation int64, now time.Time, reason string) {
	since := metav1.NewTime(now)
	if p := meta.FindStatusCondition(prev, "Ready"); p != nil && p.Status == metav1.ConditionFalse {
		since = p.LastTransitionTime
	}
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{
		Type: "Ready", Status: metav1.ConditionFalse, Reason: cmp.Or(reason, ReasonError), Message: flinkv1beta1.ErrorMessage(st.Error),
		ObservedGeneration: generation, LastTransitionTime: since,
	})
}
