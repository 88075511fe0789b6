package decide

import (
	"fmt"
	"strings"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
)

// delete takes a deleted resource down: optionally a savepoint first, then the job is
// cancelled, then every owned object (HA metadata included) is deleted, and only then the
// finalizer is released.
func (s *step) delete() {
	s.observeStatus()
	o := s.in.Observed
	if s.sessionDeletionBlocked() {
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
			s.act(Action{Kind: ActCancelJob, JobID: o.Job.ID})
			s.event(Normal, "Cleanup", "Cancelling job "+o.Job.ID+" before deletion")
		}
		return
	}
	if o.JobManager != nil || o.TaskManager != nil || o.HAMetadata || len(o.Leftovers) > 0 {
		s.act(Action{Kind: ActDeleteAll})
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
	a, wait := s.book().DeletionSavepoint(s.in.Observed.Savepoint, s.d.DeletionTimestamp.Time, string(s.d.UID), s.d.Generation, s.in.Observed.Job)
	if a.Kind != "" {
		s.act(a)
	}
	return wait
}

// MaxListedJobs bounds the job ids a session cluster's deletion lists as still running.
const MaxListedJobs = 20

// sessionDeletionBlocked holds a session cluster's deletion, as Apache's operator does: while
// FlinkSessionJobs target it (kubernetes.operator.session.deletion.block-on-session-jobs),
// since their finalizers need it to cancel their jobs, so waiting never deadlocks; and, with
// kubernetes.operator.session.deletion.block-on-unmanaged-jobs as well, while it runs jobs
// no FlinkSessionJob manages, which the user cancels first.
func (s *step) sessionDeletionBlocked() bool {
	o, opts := s.in.Observed, s.in.Options
	switch {
	case !opts.BlockOnSessionJobs:
		return false
	case len(o.SessionJobs) > 0:
		s.fail("SessionJobsExist", fmt.Sprintf("deletion waits: FlinkSessionJob(s) %s still run on this session cluster; delete them first (or set %s to false)",
			strings.Join(o.SessionJobs, ", "), config.KeyBlockOnSessionJobs))
		return true
	case opts.BlockOnUnmanagedJobs && len(o.UnmanagedJobs) > 0:
		s.fail("UnmanagedJobsExist", fmt.Sprintf("deletion waits: the session cluster runs job(s) %s that no FlinkSessionJob manages; cancel them first (or set %s to false)",
			strings.Join(o.UnmanagedJobs, ", "), config.KeyBlockOnUnmanagedJobs))
		return true
	}
	return false
}
