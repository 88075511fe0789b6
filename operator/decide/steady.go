package decide

import (
	"strconv"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// steady handles a deployed spec: triggers in flight, nonces, other ignorable changes and
// stability. valid is false when the current spec failed validation (it is then not applied).
func (s *step) steady(valid bool) {
	s.requeue(s.in.Options.ReconcileInterval)
	if s.pollTriggers() {
		s.requeue(s.in.Options.ProgressCheckInterval)
		return
	}
	if s.in.Options.SnapshotResources {
		s.book().AdoptTaken(s.in.Observed.TakenSavepoint)
	}
	if valid && s.nonces() {
		s.requeue(s.in.Options.ProgressCheckInterval)
		return
	}
	if s.reapplyParallelism() {
		return
	}
	if s.periodicSavepoint() || s.periodicCheckpoint() {
		s.requeue(s.in.Options.ProgressCheckInterval)
		return
	}
	if s.syncIngress(valid) {
		s.requeue(immediately)
	} else {
		s.cleanHistory()
	}
	if valid && s.last.Generation() != s.d.Generation {
		// Only ignorable fields changed: record them.
		s.last.Spec = *s.d.Spec.DeepCopy()
		s.last.Metadata.Metadata.Generation = s.d.Generation
		s.recordIgnorable()
	}
	if valid {
		s.observed()
	}
	s.markStable()
	s.autoscale()
}

// markStable records the deployed spec as stable once its job runs on a ready cluster (or,
// for a session cluster or a suspended job, once it is deployed).
func (s *step) markStable() {
	rs := &s.st.ReconciliationStatus
	if rs.State != flinkv1beta1.ReconciliationDeployed || rs.LastStableSpec == rs.LastReconciledSpec {
		return
	}
	ready := s.st.JobManagerDeploymentStatus == flinkv1beta1.JobManagerReady
	var stable bool
	switch {
	case s.last.Spec.Job == nil:
		stable = ready
	case s.last.Spec.Job.EffectiveState() == flinkv1beta1.JobStateSuspended:
		stable = true
	default:
		stable = ready && s.st.JobStatus.State == flinkv1beta1.JobStatusRunning
	}
	switch {
	case stable:
		rs.LastStableSpec = rs.LastReconciledSpec
	case s.st.JobManagerDeploymentStatus == flinkv1beta1.JobManagerDeployedNotReady:
		// The JobManager runs, its REST API does not answer yet: look again after
		// observer.rest-ready.delay, as Apache reschedules DEPLOYED_NOT_READY.
		s.requeue(s.in.Options.RestReadyDelay)
	default:
		s.requeue(s.in.Options.ProgressCheckInterval)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
