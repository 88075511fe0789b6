package sessionjob

import (
	"fmt"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

// restartFailedJob restarts a FAILED job with its upgrade mode
// (kubernetes.operator.job.restart.failed), as for a FlinkDeployment: the deployed spec is
// recorded again as a new run of its generation (a new job id), and the upgrade path submits
// it (stateless: empty; savepoint and last-state: from the failed job's newest checkpoint or
// savepoint, or a refusal).
func (s *step) restartFailedJob() bool {
	o := s.in.Observed
	if !s.in.Options.RestartFailedJobs || s.st.ReconciliationStatus.State != flinkv1beta1.ReconciliationDeployed ||
		s.lastSuspended() || o.Job == nil || o.Job.State != "FAILED" || s.last.Metadata.SavepointFailed {
		return false
	}
	rs := &s.st.ReconciliationStatus
	wasStable := rs.LastStableSpec == rs.LastReconciledSpec
	next := *s.last
	next.Metadata.Restarts++
	next.Metadata.JobRun = fmt.Sprintf("restart-%d", next.Metadata.Restarts)
	next.Metadata.CheckpointFallback, next.Metadata.Redeploy = false, false
	next.Metadata.Restore = restoreMode(next.Spec.Job)
	s.record(&next)
	if wasStable {
		rs.LastStableSpec = rs.LastReconciledSpec // the spec did not change: it stays stable
	}
	// The state to restore is the failed job's newest, not an older upgrade's savepoint.
	s.st.JobStatus.UpgradeSavepointPath = ""
	s.event(decide.Warning, "RestartFailedJob", fmt.Sprintf("Job %s failed; restarting it with upgrade mode %s", o.Job.ID, s.last.Spec.Job.EffectiveUpgradeMode()))
	s.res.RequeueAfter = immediately
	return true
}
