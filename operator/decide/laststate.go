package decide

import (
	"fmt"
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
)

// lastStateTeardown deletes the cluster but keeps HA metadata, so the new JobManager recovers
// the job from its latest checkpoint. A finished job has no HA metadata: its newest checkpoint
// is restored instead.
//
// HA recovery restores the latest checkpoint only: since Flink 1.15 a savepoint is never used
// for recovery. When the job's newest snapshot is a savepoint (checkpoints failing, or a
// savepoint just taken), keeping HA would go back behind it, so the job is cancelled and the
// newest snapshot restored instead, decided once the job has ended and no checkpoint can
// complete any more.
func (s *step) lastStateTeardown() {
	o := s.in.Observed
	sp := s.st.JobStatus.SavepointInfo
	switch {
	case sp != nil && sp.TriggerID != "" && o.Job != nil && !jobState(o.Job.State).globallyTerminal():
		// A savepoint in flight finishes (or fails) first: it may become the newest snapshot.
		s.pollTriggers()
	case o.Job != nil && !jobState(o.Job.State).globallyTerminal() && savepointAhead(o.Job) != nil:
		ahead := savepointAhead(o.Job)
		s.last.Metadata.Restore = RestoreSavepoint
		s.last.Metadata.CheckpointFallback = true
		s.save()
		s.event(Normal, "SavepointAhead", fmt.Sprintf("Savepoint %s is newer than the job's latest checkpoint, which HA recovery would restore; cancelling the job to restore its newest snapshot instead", ahead.Path))
	case o.Job != nil && jobState(o.Job.State).globallyTerminal():
		if s.st.JobStatus.UpgradeSavepointPath == "" {
			cp := NewestSnapshot(o.Job, &s.st.JobStatus)
			if cp == nil {
				s.refuse("last-state upgrade: the job is " + o.Job.State + ", its HA metadata is gone and it has no checkpoint; refusing to start from empty state")
				return
			}
			s.st.JobStatus.UpgradeSavepointPath = cp.Path
		}
		s.last.Metadata.Restore = RestoreSavepoint
		s.save()
		s.act(Action{Kind: ActDeleteCluster, DeleteHA: true})
	case s.checkpointTooOld():
		s.last.Metadata.Restore = RestoreSavepoint
		s.save()
		s.event(Normal, "CheckpointTooOld", CheckpointTooOldMessage(s.in.Options.LastStateMaxCheckpointAge))
	case s.lastStateByCancel():
	case !o.HAMetadata:
		s.refuse("last-state upgrade needs HA metadata, but none was found for this cluster; refusing to start from empty state (restore it, or use savepointRedeployNonce with initialSavepointPath)")
	case o.Job == nil && s.recentSavepointWait() > 0:
		// Only the REST API can tell whether that savepoint is newer than the checkpoint HA
		// recovery would restore: give it a bounded time to answer.
		s.requeue(s.recentSavepointWait())
		last := s.st.JobStatus.SavepointInfo.LastSavepoint
		s.event(Normal, "AwaitingJobManager", fmt.Sprintf("The JobManager's REST API does not answer and savepoint %s completed less than %s ago; waiting until %s for it to tell whether that savepoint is newer than the checkpoint HA recovery would restore",
			last.Location, RESTWaitAfterSavepoint, time.UnixMilli(last.TimeStamp).Add(RESTWaitAfterSavepoint).UTC().Format(time.RFC3339)))
	default:
		s.act(Action{Kind: ActDeleteCluster})
		s.event(Normal, "Cleanup", "Deleting the JobManager and TaskManagers, keeping HA metadata for last-state")
	}
}

// checkpointTooOld reports whether a last-state upgrade of the running job must take a
// savepoint instead (CheckpointTooOld).
func (s *step) checkpointTooOld() bool {
	o := s.in.Observed
	if _, dir := flinkv1beta1.FirstSet(s.conf, flinkv1beta1.ConfigSavepointsDir, flinkv1beta1.ConfigSavepointsDirV2); !dir {
		return false // no savepoint to take instead (validation says so for the resource's own key)
	}
	return CheckpointTooOld(o.Job, o.RESTReachable, s.in.Options.LastStateMaxCheckpointAge, s.in.Now)
}

// CheckpointTooOld reports whether a last-state upgrade of job must take a savepoint instead
// (kubernetes.operator.job.upgrade.last-state.max.allowed.checkpoint.age, limit; 0 for none),
// as with the Apache operator: the job runs (its REST API answering), has run longer than
// limit, and its newest completed checkpoint is older than limit, or it has none.
func CheckpointTooOld(job *JobObservation, reachable bool, limit time.Duration, now time.Time) bool {
	if limit <= 0 || job == nil || job.State != "RUNNING" || !reachable {
		return false
	}
	cutoff := now.Add(-limit).UnixMilli()
	if job.StartTime > cutoff {
		return false // started recently: HA holds state at most that old
	}
	return job.LatestCheckpoint == nil || job.LatestCheckpoint.Timestamp <= cutoff
}

// CheckpointTooOldMessage is the Event message of a last-state upgrade that takes a savepoint
// because the newest checkpoint is older than limit.
func CheckpointTooOldMessage(limit time.Duration) string {
	return fmt.Sprintf("The job's newest checkpoint is older than %s (%s); upgrading with a savepoint instead of last-state",
		limit, config.KeyLastStateMaxCheckpointAge)
}

// lastStateByCancel turns a last-state upgrade of a running job into a cancel that restores
// the job's newest snapshot, read once the job has ended (checkpointFallback), as Apache's
// operator does: with kubernetes.operator.job.upgrade.last-state.job-cancel.enabled, and
// whatever the option when the HA metadata is gone but the job still runs. It needs the
// job's REST API and a snapshot to restore: cancelling a job with none would lose its state.
func (s *step) lastStateByCancel() bool {
	o := s.in.Observed
	if o.Job == nil || !o.RESTReachable || o.Job.State == "RECONCILING" || jobState(o.Job.State).globallyTerminal() ||
		(o.HAMetadata && !s.in.Options.LastStateJobCancel) || NewestSnapshot(o.Job, &s.st.JobStatus) == nil {
		return false
	}
	s.last.Metadata.Restore = RestoreSavepoint
	s.last.Metadata.CheckpointFallback = true
	s.save()
	why := "kubernetes.operator.job.upgrade.last-state.job-cancel.enabled is true"
	if !o.HAMetadata {
		why = "its HA metadata is gone"
	}
	s.event(Normal, "Suspended", "Cancelling job "+o.Job.ID+" to restore its newest checkpoint ("+why+")")
	return true
}
