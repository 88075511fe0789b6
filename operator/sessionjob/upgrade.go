package sessionjob

import (
	"fmt"
	"strconv"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/decide"
)

// upgrade drives a recorded spec (state UPGRADING) onto the session cluster: the running job
// is taken down the way the restore mode needs, the new job's id is recorded in status, and
// only then is the job submitted under that id. One action per call.
func (s *step) upgrade() {
	s.requeue(s.in.Options.ProgressCheckInterval)
	o := s.in.Observed
	pending := s.book().PendingSavepoint() != ""
	switch {
	case s.st.JobStatus.JobID == s.targetJobID():
		s.submit()
	case pending && o.Job == nil:
		s.book().DropTriggers("the job is gone from the session cluster")
	case pending && s.st.JobStatus.SavepointInfo.TriggerType == flinkv1beta1.SnapshotTriggerUpgrade:
		// Followed to its end even when the job already finished: the savepoint is the
		// newest state, newer than any checkpoint.
		s.pollUpgradeSavepoint()
	case pending && s.in.Options.IgnorePendingSavepoint:
		// Abandoned; the next step tears the job down.
		s.book().AbandonSavepoint("the upgrade does not wait for it (" + config.KeyIgnorePendingSavepoint + " is true)")
	case pending:
		// A manual or periodic savepoint is in flight: it finishes (or fails) first.
		s.book().Poll(o.Savepoint, nil, s.last.Spec.Job)
	case o.Job != nil && !jobTerminal(o.Job.State):
		s.teardown()
	default:
		s.switchJob()
	}
}

// targetJobID is the id of the recorded spec's job ("" for a suspended spec: no job runs).
func (s *step) targetJobID() string {
	if s.lastSuspended() {
		return ""
	}
	return decide.JobIDFor(string(s.j.UID), s.last.Generation(), s.last.Metadata.JobRun)
}

// teardown stops the running job: cancelled (stateless, a redeploy, last-state), or stopped
// with a savepoint.
func (s *step) teardown() {
	m := s.last.Metadata
	switch {
	case m.SavepointFailed:
		s.refuse("the upgrade savepoint failed and no checkpoint is newer than the last savepoint; the job keeps running the previous spec (change the spec to try again)")
	case m.Redeploy || m.Restore == decide.RestoreNone || m.CheckpointFallback:
		s.cancel("to upgrade")
	case m.Restore == decide.RestoreSavepoint:
		s.savepointTeardown()
	case decide.CheckpointTooOld(s.in.Observed.Job, s.in.Observed.RESTReachable, s.in.Options.LastStateMaxCheckpointAge, s.in.Now):
		s.last.Metadata.Restore = decide.RestoreSavepoint
		s.save()
		s.event(decide.Normal, "CheckpointTooOld", decide.CheckpointTooOldMessage(s.in.Options.LastStateMaxCheckpointAge))
	default: // last-state: cancel, then restore the newest checkpoint
		if s.newestState() == "" {
			s.refuse("last-state upgrade of a session job restores the job's newest checkpoint, but it has none yet; the job keeps running the previous spec")
			return
		}
		s.cancel("to upgrade from its newest checkpoint")
	}
}

func (s *step) cancel(why string) {
	o := s.in.Observed
	if o.Job.State == "CANCELLING" {
		return
	}
	s.act(Action{Kind: decide.ActCancelJob, JobID: o.Job.ID})
	s.event(decide.Normal, "Cancel", "Cancelling job "+o.Job.ID+" "+why)
}

// savepointTeardown stops the job with a savepoint. A job that does not run (restarting,
// failing) is cancelled and restored from its newest checkpoint instead, when there is one.
func (s *step) savepointTeardown() {
	o := s.in.Observed
	switch {
	case o.Job.State == "RUNNING" && o.Job.SavepointInProgress && !s.in.Options.IgnorePendingSavepoint:
		// Flink takes a savepoint the status does not show (its trigger was lost with a
		// status write, or a FlinkStateSnapshot's): it ends first, never two at once.
		s.requeue(s.in.Options.ProgressCheckInterval)
	case o.Job.State == "RUNNING":
		id := decide.TriggerID(string(s.j.UID), "upgrade", s.last.Generation())
		s.act(Action{Kind: decide.ActStopWithSavepoint, JobID: o.Job.ID, TriggerID: id, FormatType: s.in.Options.SavepointFormat, Drain: s.in.Options.DrainOnSavepoint})
		s.book().SetTrigger(id, flinkv1beta1.SnapshotTriggerUpgrade)
		s.event(decide.Normal, "SavepointTriggered", "Stopping job "+o.Job.ID+" with a savepoint to upgrade")
	case o.Job.State == "RESTARTING" || o.Job.State == "FAILING":
		s.fallBackToCheckpoint("the job is " + o.Job.State + ", so no savepoint can be taken")
	default:
		// CREATED, INITIALIZING, RECONCILING: the job is about to run.
	}
}

// pollUpgradeSavepoint follows the upgrade's stop-with-savepoint.
func (s *step) pollUpgradeSavepoint() {
	op := s.in.Observed.Savepoint
	switch {
	case op == nil || (!op.Done && !op.Lost):
		return
	case op.Failure == "" && !op.Lost:
		s.book().CompleteSavepoint(op.Location, nil)
		s.st.JobStatus.UpgradeSavepointPath = op.Location
		return
	}
	if op.Lost {
		// No verdict on the savepoint (its result expired, or the JobManager restarted): with
		// the trigger forgotten, the job's state decides: a RUNNING job is stopped with a
		// savepoint again, an ended one restores the newest state Flink reports.
		s.book().LoseSavepoint("Upgrade savepoint", "; looking at the job again")
		s.upgrade()
		return
	}
	why := op.Failure
	s.book().ClearTrigger()
	s.event(decide.Warning, "SavepointError", "Upgrade savepoint failed: "+why)
	s.fallBackToCheckpoint("the upgrade savepoint failed (" + why + ")")
}

// fallBackToCheckpoint upgrades from the job's newest checkpoint when it is newer than the
// last savepoint (the job is cancelled first); otherwise the upgrade waits for a new spec and
// the job keeps running.
func (s *step) fallBackToCheckpoint(why string) {
	cp := s.newerCheckpoint()
	if cp == nil {
		s.last.Metadata.SavepointFailed = true
		s.save()
		s.refuse(why + " and no checkpoint is newer than the last savepoint; the job keeps running the previous spec")
		return
	}
	s.last.Metadata.CheckpointFallback = true
	s.save()
	s.event(decide.Normal, "CheckpointFallback", why+"; cancelling the job to restore its newest checkpoint "+cp.Path)
}

// switchJob runs once the previous job has ended (or is not on the cluster): it picks the
// state the new job starts from, then records the new job's id in status. The submission
// follows in the next reconcile, so a crash between submitting and writing status finds the
// job by its recorded id instead of submitting it twice.
func (s *step) switchJob() {
	if !s.pickRestorePath() {
		return
	}
	js := &s.st.JobStatus
	if s.lastSuspended() {
		s.suspended()
		return
	}
	js.JobID, js.State, js.JobName, js.StartTime = s.targetJobID(), flinkv1beta1.JobStatusReconciling, "", ""
	s.res.RequeueAfter = immediately
}

// pickRestorePath sets status.jobStatus.upgradeSavepointPath for a stateful upgrade whose
// previous job ended without a savepoint (cancelled for last-state or a checkpoint fallback,
// failed, or lost by the cluster), refusing when no state newer than that job's start is known.
func (s *step) pickRestorePath() bool {
	m := s.last.Metadata
	js := &s.st.JobStatus
	if m.Restore == decide.RestoreNone || m.Redeploy || js.UpgradeSavepointPath != "" || js.JobID == "" {
		return true
	}
	if path := s.newestState(); path != "" {
		js.UpgradeSavepointPath = path
		s.event(decide.Normal, "RestorePoint", "The new job restores "+path)
		return true
	}
	s.refuse(fmt.Sprintf("job %s ended (or is gone from the cluster) and no checkpoint or savepoint newer than its start is known; refusing to start the job from empty state "+
		"(set initialSavepointPath and bump savepointRedeployNonce, or use upgradeMode stateless)", js.JobID))
	return false
}

// newestState is the newest checkpoint or savepoint of the current job ("" when none): the
// newer of those Flink reports, else the last savepoint recorded in status since the job
// started.
func (s *step) newestState() string {
	var best *decide.SnapshotRef
	if j := s.in.Observed.Job; j != nil {
		for _, r := range []*decide.SnapshotRef{j.LatestCheckpoint, j.LatestSavepoint} {
			if r.Restorable() && (best == nil || r.ID > best.ID) {
				best = r
			}
		}
	}
	if best != nil {
		return best.Path
	}
	start, _ := strconv.ParseInt(s.st.JobStatus.StartTime, 10, 64)
	if sp := s.st.JobStatus.SavepointInfo; sp != nil && sp.LastSavepoint != nil && start > 0 && sp.LastSavepoint.TimeStamp >= start {
		return sp.LastSavepoint.Location
	}
	return ""
}

// newerCheckpoint returns the job's newest externalized checkpoint when it is newer than its
// savepoints.
func (s *step) newerCheckpoint() *decide.SnapshotRef {
	return decide.NewerCheckpoint(s.in.Observed.Job, &s.st.JobStatus)
}

// submit submits the recorded spec's job under the id recorded in status, unless the cluster
// already runs it (a submission whose status write was lost).
func (s *step) submit() {
	js := &s.st.JobStatus
	if s.lastSuspended() {
		s.suspended()
		return
	}
	if s.in.Observed.Job != nil {
		s.deployed()
		s.event(decide.Normal, "Submitted", "Job "+js.JobID+" is already on the session cluster; not submitting it again")
		return
	}
	m := s.last.Metadata
	path := ""
	if m.Restore != decide.RestoreNone || m.FirstDeployment || m.Redeploy {
		path = js.UpgradeSavepointPath
	}
	conf, _ := s.last.Spec.FlinkConfiguration.Flatten()
	job := s.last.Spec.Job
	s.act(Action{Kind: ActSubmitJob, Submit: &Submit{
		Job: *job.DeepCopy(), Configuration: conf, JobID: js.JobID, RestorePath: path,
		JarName: JarName(string(s.j.UID), js.JobID, job.JarURI), CredentialsSecret: s.j.Annotations[AnnotationJarCredentials],
	}})
	s.deployed()
	msg := "Submitting job " + js.JobID + " of generation " + strconv.FormatInt(s.last.Generation(), 10) + " to session cluster " + s.j.Spec.DeploymentName
	if path != "" {
		msg += ", restoring from " + path
	}
	s.event(decide.Normal, "Submit", msg)
}

// suspended marks a suspended spec as deployed: no job runs.
func (s *step) suspended() {
	s.deployed()
	s.st.JobStatus.State = flinkv1beta1.JobStatusSuspended
	s.event(decide.Normal, "Suspended", "Job suspended")
}

// deployed marks the recorded spec as deployed.
func (s *step) deployed() {
	rs := &s.st.ReconciliationStatus
	rs.State = flinkv1beta1.ReconciliationDeployed
	rs.ReconciliationTimestamp = s.in.Now.UnixMilli()
	if s.last.Metadata.FirstDeployment && !s.lastSuspended() {
		s.last.Metadata.FirstDeployment = false
	}
	s.save()
}

// save writes the reconciled spec back to status.
func (s *step) save() {
	s.st.ReconciliationStatus.LastReconciledSpec = s.last.Encode()
}

// refuse stops the upgrade with an error; it is retried when the spec changes or the missing
// precondition appears.
func (s *step) refuse(msg string) {
	s.fail("UpgradeRefused", msg)
	s.requeue(s.in.Options.ReconcileInterval)
}
