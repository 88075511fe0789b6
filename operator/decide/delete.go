package decide

import (
	"fmt"
	"strings"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// delete takes a deleted resource down: optionally a savepoint first, then the job is
// cancelled, then every owned object (HA metadata included) is deleted, and only then the
// finalizer is released.
func (s *step) delete() {
	s.observeStatus()
	o := s.in.Observed
	if len(o.SessionJobs) > 0 {
		// The session cluster stays up until its jobs are gone: their own finalizers need it
		// to cancel their jobs, so waiting here never deadlocks.
		s.fail("SessionJobsExist", fmt.Sprintf("deletion waits: FlinkSessionJob(s) %s still run on this session cluster; delete them first",
			strings.Join(o.SessionJobs, ", ")))
		s.requeue(s.in.Options.ProgressCheckInterval)
		return
	}
	live := o.Job != nil && !jobState(o.Job.State).globallyTerminal() && o.RESTReachable
	s.requeue(s.in.Options.ProgressCheckInterval)
	if live && s.in.Options.SavepointOnDeletion && o.Job.State == "RUNNING" {
		if s.deletionSavepoint() {
			return
		}
	}
	if live {
		if o.Job.State != "CANCELLING" {
			s.res.Action = Action{Kind: ActCancelJob, JobID: o.Job.ID}
			s.event(Normal, "Cleanup", "Cancelling job "+o.Job.ID+" before deletion")
		}
		return
	}
	if o.JobManager != nil || o.TaskManager != nil || o.HAMetadata || len(o.Leftovers) > 0 {
		s.res.Action = Action{Kind: ActDeleteAll}
		s.event(Normal, "Cleanup", "Deleting the cluster's objects and HA metadata")
		return
	}
	s.event(Normal, "Cleanup", "Cleanup finished, releasing the finalizer")
	s.st.JobManagerDeploymentStatus = flinkv1beta1.JobManagerMissing
	s.res.RemoveFinalizer = true
	s.res.RequeueAfter = 0
}

// deletionSavepoint takes a savepoint before deletion; it reports whether it acted or waits.
func (s *step) deletionSavepoint() bool {
	sp := s.st.JobStatus.SavepointInfo
	if sp != nil && sp.TriggerID != "" {
		op := s.in.Observed.Savepoint
		switch {
		case op == nil || (!op.Done && !op.Lost):
			return true
		case op.Failure == "" && !op.Lost:
			s.completeSavepoint(op.Location)
		default:
			s.clearTrigger()
			s.event(Warning, "SavepointError", "Savepoint before deletion failed; cancelling the job without one")
		}
		return false
	}
	if sp != nil && sp.LastSavepoint != nil && sp.LastSavepoint.TriggerType == flinkv1beta1.SnapshotTriggerUpgrade &&
		sp.LastSavepoint.TimeStamp >= s.d.DeletionTimestamp.UnixMilli() {
		return false
	}
	id := TriggerID(string(s.d.UID), "delete", s.d.Generation)
	s.res.Action = Action{Kind: ActStopWithSavepoint, JobID: s.in.Observed.Job.ID, TriggerID: id, FormatType: s.in.Options.SavepointFormat}
	s.setTrigger(id, flinkv1beta1.SnapshotTriggerUpgrade)
	s.event(Normal, "Cleanup", "Stopping job with a savepoint before deletion")
	return true
}
