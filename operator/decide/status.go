package decide

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// observeStatus copies what was observed into status: the JobManager deployment state (seed
// 001's state machine) and the job.
func (s *step) observeStatus() {
	o := s.in.Observed
	st := s.st
	prevJM := st.JobManagerDeploymentStatus
	switch {
	case o.JobManager == nil:
		st.JobManagerDeploymentStatus = flinkv1beta1.JobManagerMissing
	case o.PodError != nil:
		st.JobManagerDeploymentStatus = flinkv1beta1.JobManagerError
		s.failObserved(o.PodError.Reason, fmt.Sprintf("JobManager pod failing: %s: %s", o.PodError.Reason, o.PodError.Message))
	case o.JobManager.ReplicaFailure != "":
		st.JobManagerDeploymentStatus = flinkv1beta1.JobManagerError
		s.failObserved("ReplicaFailure", "JobManager deployment failing: "+o.JobManager.ReplicaFailure)
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
	if tm := o.TaskManager; tm != nil {
		st.TaskManager = &flinkv1beta1.TaskManagerInfo{
			LabelSelector: "app=" + s.d.Name + ",component=taskmanager", Replicas: tm.Replicas,
		}
	} else {
		st.TaskManager = nil
	}
	s.observeJob()
}

func (s *step) observeJob() {
	o := s.in.Observed
	js := &s.st.JobStatus
	if o.Job == nil {
		return
	}
	prev := js.State
	js.JobID, js.JobName = o.Job.ID, o.Job.Name
	js.State = flinkv1beta1.JobStatusState(o.Job.State)
	js.StartTime = strconv.FormatInt(o.Job.StartTime, 10)
	if prev != js.State {
		// updateTime moves only with the state, so an unchanged job writes no status.
		js.UpdateTime = strconv.FormatInt(s.in.Now.UnixMilli(), 10)
		if prev != "" {
			s.event(Normal, "JobStatusChanged", fmt.Sprintf("Job status changed from %s to %s", prev, js.State))
		}
	}
	if js.State == flinkv1beta1.JobStatusFailed {
		cause := o.Job.FailureCause
		if cause == "" {
			cause = "no failure cause reported"
		}
		s.failObserved("JobFailed", "Job "+o.Job.ID+" failed: "+cause)
	}
}

// finish computes the lifecycle state and the conditions, reports the reconcile's error
// (status.error plus a Warning event when it is new) and clears a resolved one.
func (s *step) finish() {
	st := s.st
	if s.errMsg != "" {
		if st.Error != s.errMsg {
			s.event(Warning, s.errWhy, s.errMsg)
		}
		st.Error = s.errMsg
	} else {
		st.Error = ""
	}
	st.LifecycleState = s.lifecycle()
	s.conditions()
}

// lifecycle derives the lifecycle state from the other status fields, as the Apache operator
// does.
func (s *step) lifecycle() flinkv1beta1.LifecycleState {
	st := s.st
	rs := st.ReconciliationStatus
	switch {
	case s.d.DeletionTimestamp != nil:
		return flinkv1beta1.LifecycleDeleting
	case rs.LastReconciledSpec == "":
		return flinkv1beta1.LifecycleCreated
	case rs.State == flinkv1beta1.ReconciliationUpgrading:
		return flinkv1beta1.LifecycleUpgrading
	case rs.State == flinkv1beta1.ReconciliationRollingBack:
		return flinkv1beta1.LifecycleRollingBack
	}
	last, _ := ParseReconciledSpec(rs.LastReconciledSpec)
	switch {
	case st.JobStatus.State == flinkv1beta1.JobStatusFailed || st.JobManagerDeploymentStatus == flinkv1beta1.JobManagerError:
		return flinkv1beta1.LifecycleFailed
	case rs.State == flinkv1beta1.ReconciliationRolledBack:
		return flinkv1beta1.LifecycleRolledBack
	case last != nil && last.Spec.Job != nil && last.Spec.Job.EffectiveState() == flinkv1beta1.JobStateSuspended:
		return flinkv1beta1.LifecycleSuspended
	case rs.LastStableSpec == rs.LastReconciledSpec:
		return flinkv1beta1.LifecycleStable
	}
	return flinkv1beta1.LifecycleDeployed
}

// conditions sets Ready, Reconciling and Running.
func (s *step) conditions() {
	st := s.st
	gen := s.d.Generation
	set := func(t string, ok bool, reason, msg string) {
		status := metav1.ConditionFalse
		if ok {
			status = metav1.ConditionTrue
		}
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{
			Type: t, Status: status, Reason: reason, Message: msg, ObservedGeneration: gen,
			LastTransitionTime: metav1.NewTime(s.in.Now),
		})
	}
	lc := st.LifecycleState
	ready := lc == flinkv1beta1.LifecycleStable || lc == flinkv1beta1.LifecycleSuspended || lc == flinkv1beta1.LifecycleRolledBack
	set("Ready", ready && st.Error == "", string(lc), readyMessage(st))
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

func readyMessage(st *flinkv1beta1.FlinkDeploymentStatus) string {
	if st.Error != "" {
		return st.Error
	}
	return fmt.Sprintf("lifecycle state %s, JobManager %s", st.LifecycleState, st.JobManagerDeploymentStatus)
}
