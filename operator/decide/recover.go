package decide

import (
	"fmt"
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// recoverJobManager recreates the JobManager Deployment of a deployed resource that lost it
// (kubernetes.operator.jm-deployment-recovery.enabled): when HA is enabled the new
// JobManager recovers the job from HA metadata, a stateless job simply starts again. A stateful
// job whose HA metadata is gone is not started from empty state: the operator says why and
// waits.
func (s *step) recoverJobManager() bool {
	o := s.in.Observed
	rs := s.st.ReconciliationStatus.State
	dep := s.deployedSpec()
	if o.JobManager != nil || (rs != flinkv1beta1.ReconciliationDeployed && rs != flinkv1beta1.ReconciliationRolledBack) {
		return false
	}
	job := dep.Spec.Job
	if job != nil && job.EffectiveState() != flinkv1beta1.JobStateRunning {
		return false // a suspended job has no JobManager
	}
	if job != nil && s.st.JobStatus.State != "" && jobState(s.st.JobStatus.State).globallyTerminal() {
		return false // a finished, cancelled or failed job needs no JobManager (failed jobs restart elsewhere)
	}
	s.markLostJobReconciling()
	conf, _ := dep.Spec.Conf()
	stateless := job != nil && job.EffectiveUpgradeMode() == flinkv1beta1.UpgradeModeStateless
	ha := flinkv1beta1.HAEnabled(conf)
	switch {
	case !s.in.Options.JMDeploymentRecovery:
		s.fail("JobManagerDeploymentMissing", "the JobManager Deployment is missing and kubernetes.operator.jm-deployment-recovery.enabled is false; change the spec or enable recovery")
		return true
	case !stateless && !ha:
		s.fail("JobManagerDeploymentMissing", "the JobManager Deployment is missing and cannot be recovered: high availability is not enabled, so the job's state would be lost (change the spec to redeploy, or use upgradeMode stateless)")
		return true
	case !stateless && job != nil && !o.HAMetadata:
		s.fail("JobManagerDeploymentMissing", "the JobManager Deployment is missing and so is the job's HA metadata; refusing to start the job from empty state (restore the HA ConfigMaps, or set initialSavepointPath and bump savepointRedeployNonce)")
		return true
	}
	jobID := s.st.JobStatus.JobID
	if job != nil && jobID == "" {
		jobID = JobIDFor(string(s.d.UID), dep.Generation(), dep.Metadata.JobRun)
	}
	s.act(Action{Kind: ActDeploy, Deploy: &Deploy{Spec: dep.Spec, Generation: dep.Generation(), Run: dep.Metadata.JobRun, JobID: jobID}})
	s.deploying()
	how := "a stateless job starts anew"
	if o.HAMetadata {
		how = "the job recovers from HA metadata"
	}
	s.event(Normal, "RecoverDeployment", fmt.Sprintf("Recovering the lost JobManager Deployment of generation %d: %s", dep.Generation(), how))
	s.requeue(s.in.Options.ProgressCheckInterval)
	return true
}

// markLostJobReconciling moves a job whose JobManager is gone out of RUNNING: nobody runs it
// until a JobManager is back.
func (s *step) markLostJobReconciling() {
	js := &s.st.JobStatus
	if js.State == "" || js.State == flinkv1beta1.JobStatusReconciling || js.State == flinkv1beta1.JobStatusSuspended {
		return
	}
	s.event(Normal, "JobStatusChanged", fmt.Sprintf("Job status changed from %s to %s: the JobManager Deployment is missing", js.State, flinkv1beta1.JobStatusReconciling))
	js.State = flinkv1beta1.JobStatusReconciling
	js.UpdateTime = itoa(s.in.Now.UnixMilli())
}

// restartFailedJob restarts a FAILED job with its upgrade mode
// (kubernetes.operator.job.restart.failed): the deployed spec is recorded again as a new run
// of the same generation and the upgrade machinery takes the failed cluster down and starts a
// new job (stateless: empty; savepoint and last-state: the newest checkpoint, or a refusal).
func (s *step) restartFailedJob() bool {
	o := s.in.Observed
	if !s.in.Options.RestartFailedJobs || !s.deployedJobObserved() || o.Job.State != "FAILED" || s.last.Metadata.SavepointFailed {
		return false
	}
	s.restart("RestartFailedJob", fmt.Sprintf("Job %s failed; restarting it with upgrade mode %s", o.Job.ID, s.last.Spec.Job.EffectiveUpgradeMode()))
	return true
}

// deployedJobObserved reports whether a deployed spec whose job should run has a job on the
// cluster: what a restart of a failed or unhealthy job needs.
func (s *step) deployedJobObserved() bool {
	job := s.last.Spec.Job
	return s.st.ReconciliationStatus.State == flinkv1beta1.ReconciliationDeployed && job != nil &&
		job.EffectiveState() == flinkv1beta1.JobStateRunning && s.in.Observed.Job != nil
}

// restart records the deployed spec as the next run of its generation (state UPGRADING).
func (s *step) restart(reason, msg string) {
	rs := &s.st.ReconciliationStatus
	wasStable := rs.LastStableSpec == rs.LastReconciledSpec
	next := *s.last
	next.Metadata.Restarts++
	next.Metadata.JobRun = fmt.Sprintf("restart-%d", next.Metadata.Restarts)
	next.Metadata.CheckpointFallback, next.Metadata.SavepointFailed, next.Metadata.Redeploy = false, false, false
	next.Metadata.Restore = restoreModeFor(next.Spec, DiffUpgrade)
	s.record(&next)
	if wasStable {
		// The spec itself did not change: a restart must not make it look unstable (and so
		// roll it back to itself).
		rs.LastStableSpec = rs.LastReconciledSpec
	}
	// The state to restore comes from the failed job's newest checkpoint, not from an older
	// upgrade's savepoint.
	s.st.JobStatus.UpgradeSavepointPath = ""
	s.event(Warning, reason, msg)
	s.res.RequeueAfter = immediately
}

// restartUnhealthyJob restarts a running job that the health check finds unhealthy
// (kubernetes.operator.cluster.health-check.enabled): more restarts within the window than the
// threshold (Flink's numRestarts against a baseline, restartsInWindow), or no checkpoint completed within the
// checkpoint-progress window although checkpointing is on. The restart keeps state as its
// upgrade mode does.
func (s *step) restartUnhealthyJob() bool {
	o := s.in.Observed
	if !s.in.Options.HealthCheck || !s.deployedJobObserved() {
		return false
	}
	if why := s.unhealthy(); why != "" {
		s.restart("RestartUnhealthyJob", fmt.Sprintf("Job %s is unhealthy (%s); restarting it with upgrade mode %s", o.Job.ID, why, s.last.Spec.Job.EffectiveUpgradeMode()))
		return true
	}
	return false
}

// unhealthy says why the observed job is unhealthy, or "".
func (s *step) unhealthy() string {
	o, opts, now := s.in.Observed, s.in.Options, s.in.Now
	job := o.Job
	if job.State != "RUNNING" && job.State != "RESTARTING" {
		return ""
	}
	if job.NumRestarts != nil {
		if n := s.restartsInWindow(*job.NumRestarts); n > int64(opts.HealthRestartsThreshold) {
			return fmt.Sprintf("restart count hit threshold: %d restarts within %s, more than %d", n, opts.HealthRestartsWindow, opts.HealthRestartsThreshold)
		}
	}
	window := opts.HealthCheckpointsWindow
	if _, checkpointing := s.conf["execution.checkpointing.interval"]; !opts.HealthCheckpoints || !checkpointing || job.State != "RUNNING" ||
		now.Sub(time.UnixMilli(job.StartTime)) < window {
		return ""
	}
	if cp := job.LatestCheckpoint; cp == nil || now.Sub(time.UnixMilli(cp.Timestamp)) > window {
		return fmt.Sprintf("no checkpoint completed within %s", window)
	}
	return ""
}
