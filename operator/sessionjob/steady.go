package sessionjob

import (
	"strings"
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/decide"
)

// steady handles a submitted spec: a job the cluster lost, triggers in flight, nonces, jars
// of earlier submissions, ignorable changes and stability. valid is false when the current
// spec failed validation (it is then not applied).
func (s *step) steady(valid bool) {
	s.requeue(s.in.Options.ReconcileInterval)
	o := s.in.Observed
	js := &s.st.JobStatus
	if !s.lastSuspended() && js.JobID != "" && o.Job == nil {
		s.book().DropTriggers("the job is gone from the session cluster")
		s.fail("JobMissing", "job "+js.JobID+" is not on session cluster "+s.j.Spec.DeploymentName+
			" (a restart without high availability loses its jobs); change restartNonce to submit it again")
		return
	}
	if s.book().Poll(o.Savepoint, o.Checkpoint, s.last.Spec.Job) {
		s.requeue(s.in.Options.ProgressCheckInterval)
		return
	}
	if s.in.Options.SnapshotResources {
		s.book().AdoptTaken(o.TakenSavepoint)
	}
	if s.restartFailedJob() {
		return
	}
	if valid && s.nonce() {
		s.requeue(s.in.Options.ProgressCheckInterval)
		return
	}
	if s.periodicSavepoint() || s.periodicCheckpoint() {
		s.requeue(s.in.Options.ProgressCheckInterval)
		return
	}
	if stale := s.staleJars(); len(stale) > 0 {
		s.act(Action{Kind: ActDeleteJars, JarIDs: stale})
		s.event(decide.Normal, "Cleanup", "Deleting the jars of earlier submissions: "+strings.Join(stale, ", "))
	} else {
		s.cleanHistory()
	}
	if valid && s.last.Generation() != s.j.Generation {
		// Only ignorable fields changed: record them.
		s.last.Spec = *s.j.Spec.DeepCopy()
		s.last.Metadata.Metadata.Generation = s.j.Generation
		s.recordIgnorable()
	}
	if valid {
		s.observed()
	}
	s.markStable()
}

// periodicSavepoint triggers a savepoint every kubernetes.operator.periodic.savepoint.interval
// while the job runs, as for a FlinkDeployment (decide.Book.PeriodicSavepoint).
func (s *step) periodicSavepoint() bool {
	o := s.in.Observed
	return s.periodic(s.book().PeriodicSavepoint(s.in.Options.PeriodicSavepoint, o.Job, o.RESTReachable, s.in.NoSnapshotSlot, string(s.j.UID)))
}

// periodicCheckpoint triggers a full checkpoint every
// kubernetes.operator.periodic.checkpoint.interval while the job runs, on a session cluster
// of Flink 1.17 or later (decide.Book.PeriodicCheckpoint).
func (s *step) periodicCheckpoint() bool {
	o := s.in.Observed
	return s.periodic(s.book().PeriodicCheckpoint(s.in.Options.PeriodicCheckpoint, o.Job, o.RESTReachable, s.in.NoSnapshotSlot, string(s.j.UID), o.FlinkVersion))
}

// periodic takes a periodic trigger a (none: Kind "") as the reconcile's action, and asks to
// look again after wait; it reports whether there was one.
func (s *step) periodic(a decide.Action, wait time.Duration) bool {
	if wait > 0 {
		s.requeue(wait)
	}
	if a.Kind == "" {
		return false
	}
	s.act(jobAction(a))
	return true
}

// cleanHistory trims the savepoint history and disposes of what leaves it, as for a
// FlinkDeployment (decide.Book.CleanHistory), once no other action runs.
func (s *step) cleanHistory() {
	a, more := s.book().CleanHistory(s.in.Options, s.in.Observed.RESTReachable)
	if a.Kind != "" {
		s.act(jobAction(a))
	}
	if more {
		s.requeue(immediately)
	}
}

// nonce triggers the snapshot of a changed savepoint or checkpoint nonce.
func (s *step) nonce() bool {
	if decide.SavepointNonceWaits(s.j.Spec.Job, s.last.Spec.Job, s.in.Observed.Job) {
		s.requeue(s.in.Options.ProgressCheckInterval)
		return true
	}
	n := decide.ChangedNonce(s.j.Spec.Job, s.last.Spec.Job)
	if n.Kind == "" {
		return false
	}
	s.recordIgnorable()
	o := s.in.Observed
	jobID := ""
	if o.Job != nil {
		jobID = o.Job.ID
	}
	a := s.book().Trigger(n, string(s.j.UID), jobID, o.Job != nil && o.Job.State == "RUNNING")
	s.act(jobAction(a))
	return true
}

// staleJars are the uploaded jars of earlier submissions, deleted once the current job runs.
func (s *step) staleJars() []string {
	o := s.in.Observed
	if o.Job == nil || o.Job.State != "RUNNING" {
		return nil
	}
	current := JarName(string(s.j.UID), s.st.JobStatus.JobID, s.last.Spec.Job.JarURI)
	var stale []string
	for _, j := range o.Jars {
		if j.Name != current {
			stale = append(stale, j.ID)
		}
	}
	return stale
}

// recordIgnorable writes a change that runs nothing into the reconciled spec; a stable spec
// stays stable.
func (s *step) recordIgnorable() { decide.RecordIgnorable(&s.st.ReconciliationStatus, s.last.Encode()) }

// markStable records the submitted spec as stable once its job runs (or it is suspended).
func (s *step) markStable() {
	rs := &s.st.ReconciliationStatus
	if rs.State != flinkv1beta1.ReconciliationDeployed || rs.LastStableSpec == rs.LastReconciledSpec {
		return
	}
	if s.lastSuspended() || s.st.JobStatus.State == flinkv1beta1.JobStatusRunning {
		rs.LastStableSpec = rs.LastReconciledSpec
		return
	}
	s.requeue(s.in.Options.ProgressCheckInterval)
}

// delete takes a deleted session job down: optionally a savepoint first, then the job is
// cancelled and its uploaded jars deleted, and only then the finalizer is released. When the
// session cluster is gone (or going, and its REST API no longer answers) its jobs went with it.
func (s *step) delete() {
	s.observeJob()
	o := s.in.Observed
	s.requeue(s.in.Options.ProgressCheckInterval)
	if o.Cluster == ClusterMissing || o.Cluster == ClusterNotSession || (o.ClusterDeleting && !o.RESTReachable) {
		s.release("the session cluster is gone, and its jobs with it")
		return
	}
	if o.ClusterDeleting && !s.in.Options.BlockOnSessionJobs {
		s.release("the session cluster is being deleted and " + config.KeyBlockOnSessionJobs + " is false: its job goes with it")
		return
	}
	if !o.RESTReachable {
		s.fail("SessionClusterNotReady", "deletion waits for the REST API of session cluster "+s.j.Spec.DeploymentName+" to cancel the job: "+
			o.RESTError+o.ClusterMessage)
		return
	}
	if o.Job != nil && !jobTerminal(o.Job.State) {
		s.stopBeforeDeletion()
		return
	}
	if len(o.Jars) > 0 {
		ids := make([]string, len(o.Jars))
		for i, j := range o.Jars {
			ids[i] = j.ID
		}
		s.act(Action{Kind: ActDeleteJars, JarIDs: ids})
		s.event(decide.Normal, "Cleanup", "Deleting uploaded jars "+strings.Join(ids, ", "))
		return
	}
	s.release("the job is stopped and its jars are deleted")
}

// stopBeforeDeletion stops the live job: with a savepoint first when
// kubernetes.operator.job.savepoint-on-deletion is set, then by cancelling it.
func (s *step) stopBeforeDeletion() {
	o := s.in.Observed
	if s.in.Options.SavepointOnDeletion && o.Job.State == "RUNNING" {
		a, wait := s.book().DeletionSavepoint(o.Savepoint, s.j.DeletionTimestamp.Time, string(s.j.UID), s.j.Generation, o.Job)
		if a.Kind != "" {
			s.act(jobAction(a))
		}
		if wait {
			return
		}
	}
	if o.Job.State != "CANCELLING" {
		s.act(Action{Kind: decide.ActCancelJob, JobID: o.Job.ID})
		s.event(decide.Normal, "Cleanup", "Cancelling job "+o.Job.ID+" before deletion")
	}
}

func (s *step) release(why string) {
	s.event(decide.Normal, "Cleanup", "Cleanup finished ("+why+"), releasing the finalizer")
	s.res.RemoveFinalizer = true
	s.res.RequeueAfter = 0
}
