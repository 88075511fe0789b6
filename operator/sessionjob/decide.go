package sessionjob

import (
	"fmt"
	"strconv"
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

// step is one reconcile's working state.
type step struct {
	in     Input
	j      *flinkv1beta1.FlinkSessionJob
	st     *flinkv1beta1.FlinkSessionJobStatus
	res    Result
	last   *ReconciledSpec
	report decide.Report // the error this reconcile reports (status.error)
}

// immediately is the requeue after a step that only wrote status (the write-ahead log).
const immediately = time.Second

// Decide is the FlinkSessionJob state machine: from the resource, its status and what was
// observed of its session cluster it picks one action, the new status, the events to record
// and when to look again. It is pure: no I/O, time comes from in.Now.
func Decide(in Input) Result {
	s := &step{in: in, j: in.Resource, st: in.Resource.Status.DeepCopy()}
	s.res.Action = None // none yet: the one write outside act
	if s.j.DeletionTimestamp != nil {
		s.delete()
	} else {
		s.reconcile()
	}
	s.finish()
	s.res.Status = *s.st
	return s.res
}

func (s *step) reconcile() {
	last, err := ParseReconciledSpec(s.st.ReconciliationStatus.LastReconciledSpec)
	if err != nil {
		s.fail("StatusCorrupt", fmt.Sprintf("status.reconciliationStatus.lastReconciledSpec cannot be read (%v); fix or clear it", err))
		return
	}
	s.last = last
	valid := s.validate()
	s.observeJob()
	switch {
	case !valid && last == nil:
		return
	case valid && last == nil:
		s.begin(true)
		return
	case valid && s.changed():
		s.begin(false)
		return
	case !s.clusterReady():
		return
	case s.st.ReconciliationStatus.State == flinkv1beta1.ReconciliationUpgrading:
		s.upgrade()
		return
	}
	s.steady(valid)
}

// validate reports validation errors; the last valid spec keeps running.
func (s *step) validate() bool {
	errs := s.j.Validate()
	if len(errs) > 0 {
		s.fail("ValidationError", decide.InvalidSpec(s.st.ReconciliationStatus.LastReconciledSpec != "", errs.ToAggregate().Error()))
		s.observed()
		return false
	}
	if s.st.ObservedGeneration < s.j.Generation {
		conf, _ := s.j.Spec.FlinkConfiguration.Flatten()
		s.res.Events = append(s.res.Events, decide.UnknownOptionEvents(conf)...)
	}
	return true
}

// clusterReady reports whether the session cluster can take requests; if not, the job waits
// with status.error saying why.
func (s *step) clusterReady() bool {
	o := s.in.Observed
	name := s.j.Spec.DeploymentName
	switch {
	case o.Cluster == ClusterMissing:
		s.fail("SessionClusterMissing", "waiting for session cluster "+name+": no FlinkDeployment of that name exists in the namespace")
	case o.Cluster == ClusterNotSession:
		s.fail("NotASessionCluster", "FlinkDeployment "+name+" runs an application job; a session job needs a session cluster (a FlinkDeployment without spec.job)")
	case o.ClusterDeleting:
		s.fail("SessionClusterDeleting", "session cluster "+name+" is being deleted; the job is not submitted to it")
	case o.Cluster == ClusterNotReady:
		s.fail("SessionClusterNotReady", "waiting for session cluster "+name+" to be READY: "+o.ClusterMessage)
	case !o.RESTReachable:
		s.fail("SessionClusterNotReady", "waiting for the REST API of session cluster "+name+": "+o.RESTError)
	default:
		return true
	}
	s.requeue(s.in.Options.ProgressCheckInterval)
	return false
}

// observed marks the current generation as looked at.
func (s *step) observed() {
	s.st.ObservedGeneration = max(s.st.ObservedGeneration, s.j.Generation)
}

// changed reports whether the spec differs from the reconciled one in a field that needs
// the job resubmitted.
func (s *step) changed() bool {
	diff, _ := decide.DiffSessionJob(s.last.Spec, s.j.Spec)
	return diff != decide.DiffIgnore
}

// begin records a new spec in the write-ahead log (state UPGRADING) before anything runs.
func (s *step) begin(first bool) {
	diff, fields := decide.DiffIgnore, []string(nil)
	if !first {
		diff, fields = decide.DiffSessionJob(s.last.Spec, s.j.Spec)
	}
	next := &ReconciledSpec{Spec: *s.j.Spec.DeepCopy()}
	next.Metadata.APIVersion = flinkv1beta1.GroupVersion.String()
	next.Metadata.Metadata.Generation = s.j.Generation
	next.Metadata.FirstDeployment = first || s.last.Metadata.FirstDeployment
	next.Metadata.Restore = restoreMode(s.j.Spec.Job)
	next.Metadata.Redeploy = diff == decide.DiffSavepointRedeploy
	js := &s.st.JobStatus
	switch {
	case first:
		js.UpgradeSavepointPath = s.j.Spec.Job.InitialSavepointPath
		s.event(decide.Normal, "Submit", "Starting the first submission of generation "+strconv.FormatInt(s.j.Generation, 10))
	case next.Metadata.Redeploy:
		js.UpgradeSavepointPath = s.j.Spec.Job.InitialSavepointPath
		s.event(decide.Normal, "SpecChanged", decide.SessionJobSpecChangedMessage(diff, s.last.Spec, s.j.Spec, fields))
	default:
		if s.jobRanFromPath() {
			// The running job's state is newer than the path it started from.
			js.UpgradeSavepointPath = ""
		}
		s.event(decide.Normal, "SpecChanged", decide.SessionJobSpecChangedMessage(diff, s.last.Spec, s.j.Spec, fields))
	}
	s.record(next)
	s.res.RequeueAfter = immediately
}

// jobRanFromPath reports whether the deployed job already started from
// status.jobStatus.upgradeSavepointPath (it was submitted, and is not suspended).
func (s *step) jobRanFromPath() bool {
	rs := s.st.ReconciliationStatus
	return rs.State == flinkv1beta1.ReconciliationDeployed && s.st.JobStatus.JobID != "" && !s.lastSuspended()
}

func (s *step) lastSuspended() bool {
	return s.last != nil && s.last.Spec.Job != nil && s.last.Spec.Job.EffectiveState() == flinkv1beta1.JobStateSuspended
}

// record writes the write-ahead log: the target spec and state UPGRADING.
func (s *step) record(r *ReconciledSpec) {
	s.last = r
	rs := &s.st.ReconciliationStatus
	rs.LastReconciledSpec = r.Encode()
	rs.State = flinkv1beta1.ReconciliationUpgrading
	rs.ReconciliationTimestamp = s.in.Now.UnixMilli()
	s.observed()
}

// restoreMode is where the job of a spec restores from after an upgrade.
func restoreMode(job *flinkv1beta1.JobSpec) decide.RestoreMode {
	switch job.EffectiveUpgradeMode() {
	case flinkv1beta1.UpgradeModeSavepoint:
		return decide.RestoreSavepoint
	case flinkv1beta1.UpgradeModeLastState:
		return decide.RestoreHA
	}
	return decide.RestoreNone
}

// observeJob copies the observed job into status.
func (s *step) observeJob() {
	o := s.in.Observed
	js := &s.st.JobStatus
	if o.Job == nil || (js.State == flinkv1beta1.JobStatusSuspended && s.st.ReconciliationStatus.State == flinkv1beta1.ReconciliationDeployed) {
		return // a suspended job's last run stays on the cluster, ended
	}
	// The observed job is the one of status.jobStatus.jobId, so the id does not change.
	if failure := decide.ObserveJob(js, o.Job, s.in.Now, &s.res.Events); failure != "" {
		s.report.FailJob(failure, decide.FailureTrace(o.Job), o.Job.FailureCauses)
	}
}

// fail reports a decision's error (see decide.Report).
func (s *step) fail(reason, msg string) { s.report.Fail(reason, msg) }

func (s *step) event(t decide.EventType, reason, msg string) {
	s.res.Events = append(s.res.Events, decide.Event{Type: t, Reason: reason, Message: msg})
}

// requeue asks to look again after at most d.
func (s *step) requeue(d time.Duration) {
	if s.res.RequeueAfter == 0 || d < s.res.RequeueAfter {
		s.res.RequeueAfter = d
	}
}

// book is the step's view of the job status's snapshot part.
func (s *step) book() decide.Book {
	return decide.Book{JS: &s.st.JobStatus, Now: s.in.Now, Format: s.in.Options.SavepointFormat, CheckpointType: s.in.Options.CheckpointType, Drain: s.in.Options.DrainOnSavepoint, Events: &s.res.Events, Records: &s.res.Records}
}

// finish reports the reconcile's error, and computes the lifecycle state and conditions.
func (s *step) finish() {
	st := s.st
	s.report.Write(&st.CommonStatus, &s.res.Events, s.in.Options.Exceptions)
	last, _ := ParseReconciledSpec(st.ReconciliationStatus.LastReconciledSpec)
	suspended := last != nil && last.Spec.Job != nil && last.Spec.Job.EffectiveState() == flinkv1beta1.JobStateSuspended
	st.LifecycleState = decide.Lifecycle(&st.CommonStatus, s.j.DeletionTimestamp != nil, false, suspended)
	msg := flinkv1beta1.ErrorMessage(st.Error)
	if msg == "" {
		msg = fmt.Sprintf("lifecycle state %s on session cluster %s", st.LifecycleState, s.j.Spec.DeploymentName)
	}
	decide.SetConditions(&st.CommonStatus, s.j.Generation, s.in.Now, msg, s.report.Reason())
}

func jobTerminal(state string) bool { return flinkv1beta1.JobStatusState(state).GloballyTerminal() }

// act sets the reconcile's one action; a second one panics (decide.OneAction).
func (s *step) act(a Action) {
	decide.OneAction("sessionjob", s.res.Action.Kind, a.Kind)
	s.res.Action = a
}
