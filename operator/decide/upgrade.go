package decide

import (
	"fmt"
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// upgrade drives a recorded spec (state UPGRADING) onto the cluster: first the old cluster is
// taken down the way the restore mode needs (cancel, savepoint, or keep HA), then the new one
// is deployed from the right state. One action per call.
func (s *step) upgrade() {
	o := s.in.Observed
	gen := s.last.Generation()
	switch {
	case o.JobManager != nil && o.JobManager.Generation == gen && o.JobManager.Run == s.last.Metadata.JobRun:
		// A deploy of this generation began but its status was never written: the operator
		// stopped somewhere between its writes. Applying the same objects again is
		// idempotent (same job id, same restore point) and completes what is missing.
		s.deployNew()
	case o.JobManager != nil, o.TaskManager != nil:
		// The TaskManagers without the JobManager are the old cluster still going: its
		// Deployments' deletions reach the cache one at a time, or the last delete stopped
		// between them. Deploying now would take the old TaskManager Deployment, still in
		// the cache, for the new one and create none; tearing down again is idempotent.
		s.teardown()
	default:
		s.deployNew()
	}
	s.requeue(s.in.Options.ProgressCheckInterval)
}

// deployed marks the recorded spec as deployed (rolled back, when it is a rollback's).
func (s *step) deployed() {
	rs := &s.st.ReconciliationStatus
	rs.State = flinkv1beta1.ReconciliationDeployed
	if s.rollingBack {
		rs.State = flinkv1beta1.ReconciliationRolledBack
	}
	// The readiness timeout of a rollback counts from here.
	rs.ReconciliationTimestamp = s.in.Now.UnixMilli()
	if s.last.Metadata.FirstDeployment && (s.last.Spec.Job == nil || s.last.Spec.Job.EffectiveState() == flinkv1beta1.JobStateRunning) {
		s.last.Metadata.FirstDeployment = false
	}
	s.save()
}

// save writes the spec being driven onto the cluster back to status: the reconciled spec, or
// the stable spec during a rollback (the reconciled spec then keeps the spec that failed, so
// the user's unchanged spec is not retried).
func (s *step) save() {
	if s.rollingBack {
		s.st.ReconciliationStatus.LastStableSpec = s.last.Encode()
		return
	}
	s.st.ReconciliationStatus.LastReconciledSpec = s.last.Encode()
}

// teardown stops the old cluster one step at a time.
func (s *step) teardown() {
	if s.pendingSavepointHolds() {
		return
	}
	m := s.last.Metadata
	switch {
	case m.Redeploy || m.Restore == RestoreNone:
		s.cancelThenDelete(true)
	case m.CheckpointFallback:
		s.checkpointFallback()
	case m.Restore == RestoreSavepoint:
		s.savepointTeardown()
	case m.Restore == RestoreHA:
		s.lastStateTeardown()
	}
}

// cancelThenDelete cancels a live job, then deletes the cluster.
func (s *step) cancelThenDelete(deleteHA bool) {
	o := s.in.Observed
	if o.Job != nil && !jobState(o.Job.State).globallyTerminal() && o.RESTReachable {
		if o.Job.State != "CANCELLING" {
			s.act(Action{Kind: ActCancelJob, JobID: o.Job.ID})
			s.event(Normal, "Cancel", "Cancelling job "+o.Job.ID+" to upgrade")
		}
		return
	}
	s.act(Action{Kind: ActDeleteCluster, DeleteHA: deleteHA})
	s.event(Normal, "Cleanup", "Deleting the JobManager and TaskManagers of the previous deployment")
}

// savepointTeardown stops the job with a savepoint, then deletes the cluster. When the job
// does not run it falls back to last-state (HA metadata) or to the newest checkpoint of a
// finished job; when neither exists it refuses and says why.
func (s *step) savepointTeardown() {
	o := s.in.Observed
	sp := s.st.JobStatus.SavepointInfo
	switch {
	case sp != nil && sp.TriggerID != "" && sp.TriggerType == flinkv1beta1.SnapshotTriggerUpgrade:
		s.pollUpgradeSavepoint()
	case sp != nil && sp.TriggerID != "":
		// A manual or periodic savepoint is in flight: it finishes (or fails) first, so the
		// upgrade never restores from state older than a savepoint Flink completed.
		s.pollTriggers()
	case s.st.JobStatus.UpgradeSavepointPath != "":
		// This upgrade's savepoint is taken; stop-with-savepoint leaves the job FINISHED.
		if o.Job != nil && !jobState(o.Job.State).globallyTerminal() && o.RESTReachable {
			return
		}
		s.act(Action{Kind: ActDeleteCluster, DeleteHA: true})
		s.event(Normal, "Cleanup", "Deleting the previous deployment; its state is kept at "+s.st.JobStatus.UpgradeSavepointPath)
	case s.last.Metadata.SavepointFailed:
		s.refuse("the upgrade savepoint failed and no externalized checkpoint is newer than the last savepoint; the job keeps running the previous spec (change the spec to try again)")
	case o.Job != nil && o.Job.State == "RUNNING" && o.RESTReachable && o.Job.SavepointInProgress && !s.in.Options.IgnorePendingSavepoint:
		// Flink takes a savepoint the status does not show (its trigger was lost with a
		// status write, or a FlinkStateSnapshot's): it ends first, never two at once (unless
		// kubernetes.operator.job.upgrade.ignore-pending-savepoint says not to wait).
		s.requeue(s.in.Options.ProgressCheckInterval)
	case o.Job != nil && o.Job.State == "RUNNING" && o.RESTReachable:
		id := TriggerID(string(s.d.UID), "upgrade", s.last.Generation())
		s.act(Action{Kind: ActStopWithSavepoint, JobID: o.Job.ID, TriggerID: id, FormatType: s.in.Options.SavepointFormat, Drain: s.in.Options.DrainOnSavepoint})
		s.setTrigger(id, flinkv1beta1.SnapshotTriggerUpgrade)
		s.event(Normal, "SavepointTriggered", "Stopping job "+o.Job.ID+" with a savepoint to upgrade")
	case !o.RESTReachable:
		why := o.RESTError
		if why == "" {
			why = "the JobManager is not ready yet"
		}
		s.fail("UpgradeWaiting", "savepoint upgrade waits for the JobManager REST API: "+why)
	default:
		s.savepointImpossible()
	}
}

// savepointImpossible handles a savepoint upgrade of a job that is not RUNNING.
func (s *step) savepointImpossible() {
	o := s.in.Observed
	state := "missing"
	if o.Job != nil {
		state = o.Job.State
	}
	switch {
	case o.Job != nil && o.Job.State == "FINISHED" && s.unrecordedSavepoint() != nil:
		// A stop-with-savepoint whose status write was lost: Flink still reports it.
		sp := s.unrecordedSavepoint()
		s.st.JobStatus.UpgradeSavepointPath = sp.Path
		s.event(Normal, "SavepointRecovered", "Job "+o.Job.ID+" finished with savepoint "+sp.Path+", which status did not record; restoring from it")
	case s.in.Options.LastStateFallback && flinkv1beta1.HAEnabled(s.conf) && o.HAMetadata:
		s.last.Metadata.Restore = RestoreHA
		s.save()
		s.event(Normal, "LastStateFallback", fmt.Sprintf("Job is %s, so no savepoint can be taken; upgrading with last-state from HA metadata", state))
	case o.Job != nil && jobState(o.Job.State).globallyTerminal() && s.newerCheckpoint() != nil:
		cp := s.newerCheckpoint()
		s.st.JobStatus.UpgradeSavepointPath = cp.Path
		s.event(Normal, "CheckpointFallback", fmt.Sprintf("Job is %s; restoring from its newest checkpoint %s", state, cp.Path))
	default:
		s.refuse(fmt.Sprintf("savepoint upgrade needs a RUNNING job, but the job is %s and there is neither HA metadata nor a newer checkpoint to restore from; the upgrade is not applied", state))
	}
}

// pollUpgradeSavepoint follows the upgrade's stop-with-savepoint.
func (s *step) pollUpgradeSavepoint() {
	op := s.in.Observed.Savepoint
	switch {
	case op == nil || (!op.Done && !op.Lost):
		return // still running, or the REST API did not answer
	case op.Failure == "" && !op.Lost:
		s.completeSavepoint(op.Location)
		s.st.JobStatus.UpgradeSavepointPath = op.Location
		return
	}
	if op.Lost {
		// Flink forgot the trigger (its result outlived rest.async.store-duration, or the
		// JobManager restarted): no verdict on the savepoint. The job says what happened: a
		// RUNNING job is stopped with a savepoint again, a FINISHED one restores the savepoint
		// Flink reports.
		s.book().LoseSavepoint("Upgrade savepoint", "; looking at the job again")
		s.savepointTeardown()
		return
	}
	why := op.Failure
	s.clearTrigger()
	s.event(Warning, "SavepointError", "Upgrade savepoint failed: "+why)
	if cp := s.newerCheckpoint(); cp != nil {
		s.last.Metadata.CheckpointFallback = true
		s.last.Metadata.FallbackCheckpoint, s.last.Metadata.FallbackCheckpointTime = cp.Path, cp.Timestamp
		s.save()
		s.event(Normal, "CheckpointFallback", "Falling back to the newest externalized checkpoint "+cp.Path+", which is newer than the last savepoint")
		return
	}
	s.last.Metadata.SavepointFailed = true
	s.save()
	s.refuse("upgrade savepoint failed (" + why + ") and no externalized checkpoint is newer than the last savepoint; the job keeps running the previous spec")
}

// checkpointFallback cancels the job, then restores the upgrade from its newest snapshot,
// checkpoint or savepoint (read after the job ended, so no newer one can appear later).
func (s *step) checkpointFallback() {
	o := s.in.Observed
	if o.Job != nil && !jobState(o.Job.State).globallyTerminal() {
		s.cancelThenDelete(true)
		return
	}
	if s.st.JobStatus.UpgradeSavepointPath == "" {
		snap := NewestSnapshot(o.Job, &s.st.JobStatus)
		if m := s.last.Metadata; m.FallbackCheckpoint != "" && (snap == nil || snap.Timestamp < m.FallbackCheckpointTime) {
			// Never older than the checkpoint the fallback was decided on (a JobManager
			// failover in between leaves Flink's statistics without it).
			snap = &SnapshotRef{Path: m.FallbackCheckpoint, Timestamp: m.FallbackCheckpointTime}
		}
		if snap == nil {
			s.refuse("the job ended but its newest checkpoint cannot be read; the upgrade is not applied")
			return
		}
		s.st.JobStatus.UpgradeSavepointPath = snap.Path
		return
	}
	s.act(Action{Kind: ActDeleteCluster, DeleteHA: true})
}

// deployNew deploys the recorded spec once the old cluster is gone.
func (s *step) deployNew() {
	spec := s.last.Spec
	if spec.Job != nil && spec.Job.EffectiveState() == flinkv1beta1.JobStateSuspended {
		s.deployed()
		s.st.JobStatus.State = flinkv1beta1.JobStatusSuspended
		s.event(Normal, "Suspended", "Job suspended")
		return
	}
	path, jobID, ok := s.restorePoint()
	if !ok {
		return
	}
	s.act(Action{Kind: ActDeploy, Deploy: &Deploy{
		Spec: spec, Generation: s.last.Generation(), Run: s.last.Metadata.JobRun, JobID: jobID, RestorePath: path,
	}})
	s.deployed()
	s.st.ClusterInfo = nil // the new JobManager's version is read once it answers
	s.deploying()
	if spec.Job != nil {
		s.st.JobStatus.JobID = jobID
		s.st.JobStatus.State = flinkv1beta1.JobStatusReconciling
	}
	msg := "Deploying generation " + fmt.Sprint(s.last.Generation())
	if path != "" {
		msg += ", restoring from " + path
	} else if s.last.Metadata.Restore == RestoreHA && s.in.Observed.HAMetadata {
		msg += ", recovering from HA metadata"
	}
	s.event(Normal, "Deploy", msg)
}

// restorePoint picks the path (or HA) the new job starts from, refusing to start a stateful
// job from empty state on its own.
func (s *step) restorePoint() (path, jobID string, ok bool) {
	o := s.in.Observed
	first := s.last.Metadata.FirstDeployment
	jobID = JobIDFor(string(s.d.UID), s.last.Generation(), s.last.Metadata.JobRun)
	upgradePath := s.st.JobStatus.UpgradeSavepointPath
	if s.last.Spec.Job == nil {
		return "", "", true
	}
	switch s.last.Metadata.Restore {
	case RestoreNone:
		if first || s.last.Metadata.Redeploy {
			return upgradePath, jobID, true
		}
		return "", jobID, true
	case RestoreHA:
		switch {
		case o.HAMetadata:
			if s.st.JobStatus.JobID != "" {
				jobID = s.st.JobStatus.JobID // HA recovers the same job
			}
			return "", jobID, true
		case upgradePath != "" || first:
			return upgradePath, jobID, true
		}
		s.refuse("last-state: HA metadata is missing and no checkpoint is known; refusing to start the job from empty state (restore the HA ConfigMaps, or set initialSavepointPath and bump savepointRedeployNonce)")
		return "", "", false
	default: // RestoreSavepoint
		switch {
		case upgradePath != "" || first:
			return upgradePath, jobID, true
		case o.HAMetadata:
			return "", s.st.JobStatus.JobID, true
		}
		s.refuse("savepoint upgrade mode: there is no savepoint to restore from; refusing to start the job from empty state (set initialSavepointPath and bump savepointRedeployNonce, or use upgradeMode stateless)")
		return "", "", false
	}
}

// refuse stops the upgrade with an error; it is retried only when the spec changes or the
// missing precondition appears.
func (s *step) refuse(msg string) {
	s.fail("UpgradeRefused", msg)
	s.requeue(s.in.Options.ReconcileInterval)
}

// newerCheckpoint returns the job's newest externalized checkpoint when it is newer than its
// savepoints.
func (s *step) newerCheckpoint() *SnapshotRef {
	return NewerCheckpoint(s.in.Observed.Job, &s.st.JobStatus)
}

// NewerCheckpoint returns the newest externalized checkpoint of job (nil: none observed) when
// it is newer than every savepoint of the job: the last one js recorded and the newest Flink
// reports.
func NewerCheckpoint(job *JobObservation, js *flinkv1beta1.JobStatus) *SnapshotRef {
	if job == nil || !job.LatestCheckpoint.Restorable() {
		return nil
	}
	cp := job.LatestCheckpoint
	if sp := js.SavepointInfo; sp != nil && sp.LastSavepoint != nil && sp.LastSavepoint.TimeStamp > cp.Timestamp {
		return nil
	}
	if sp := job.LatestSavepoint; sp != nil && sp.ID > cp.ID {
		return nil
	}
	return cp
}

// NewestSnapshot returns the newest snapshot of job to restore from: its newest externalized
// checkpoint when that is newer than every savepoint, else the newest savepoint Flink reports
// or status recorded (nil: none).
func NewestSnapshot(job *JobObservation, js *flinkv1beta1.JobStatus) *SnapshotRef {
	if cp := NewerCheckpoint(job, js); cp != nil {
		return cp
	}
	var newest *SnapshotRef
	if job != nil && job.LatestSavepoint.Restorable() {
		newest = job.LatestSavepoint
	}
	if sp := js.SavepointInfo; sp != nil && sp.LastSavepoint != nil && sp.LastSavepoint.Location != "" &&
		(newest == nil || sp.LastSavepoint.TimeStamp > newest.Timestamp) {
		newest = &SnapshotRef{Path: sp.LastSavepoint.Location, Timestamp: sp.LastSavepoint.TimeStamp}
	}
	return newest
}

// savepointAhead returns the job's newest savepoint when Flink reports it newer than the
// job's latest completed checkpoint (both come from one answer, and share one id counter).
func savepointAhead(job *JobObservation) *SnapshotRef {
	sp := job.LatestSavepoint
	if !sp.Restorable() || (job.LatestCheckpoint != nil && job.LatestCheckpoint.ID > sp.ID) {
		return nil
	}
	return sp
}

// RESTWaitAfterSavepoint bounds how long a last-state upgrade waits for an unreachable REST API
// after a savepoint completed: only Flink can tell whether the savepoint is newer than the
// latest checkpoint, which HA recovery would restore instead. After it, HA recovery goes ahead.
const RESTWaitAfterSavepoint = time.Minute

// recentSavepointWait is how much longer to wait for the REST API because of a savepoint that
// completed less than RESTWaitAfterSavepoint ago (0: none, or waited long enough).
func (s *step) recentSavepointWait() time.Duration {
	sp := s.st.JobStatus.SavepointInfo
	if sp == nil || sp.LastSavepoint == nil || sp.LastSavepoint.TimeStamp == 0 || sp.LastSavepoint.Location == "" {
		return 0
	}
	return max(0, time.UnixMilli(sp.LastSavepoint.TimeStamp).Add(RESTWaitAfterSavepoint).Sub(s.in.Now))
}

// unrecordedSavepoint is the job's newest savepoint as Flink reports it, when it is newer than
// its newest checkpoint and not the last savepoint status recorded.
func (s *step) unrecordedSavepoint() *SnapshotRef {
	o := s.in.Observed
	sp := o.Job.LatestSavepoint
	if sp == nil || sp.Path == "" || (o.Job.LatestCheckpoint != nil && o.Job.LatestCheckpoint.ID > sp.ID) {
		return nil
	}
	if last := s.st.JobStatus.SavepointInfo; last != nil && last.LastSavepoint != nil && last.LastSavepoint.Location == sp.Path {
		return nil
	}
	return sp
}

// JobIDFor derives the job id of a generation's run ("" for its first run).
func JobIDFor(uid string, generation int64, run string) string {
	if run == "" {
		return TriggerID(uid, "job", generation)
	}
	return TriggerID(uid, "job/"+run, generation)
}
