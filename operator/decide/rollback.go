package decide

import (
	"fmt"
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// A rollback (kubernetes.operator.deployment.rollback.enabled) takes a deployed spec that
// did not become stable within kubernetes.operator.deployment.readiness.timeout back to
// status.reconciliationStatus.lastStableSpec. As in the Apache operator, lastReconciledSpec
// keeps the spec that failed while state is ROLLING_BACK or ROLLED_BACK: the user's unchanged
// spec is then not tried again, and any new spec breaks out into a normal upgrade.

// beginRollbackIfUnstable starts a rollback when every condition of rollbackRestore holds: it
// records state ROLLING_BACK and how the job restores, and acts in the next reconcile.
func (s *step) beginRollbackIfUnstable() bool {
	stable, restore, ok := s.rollbackTarget()
	if !ok {
		return false
	}
	failedGen := s.last.Generation()
	stable.Metadata.Restore = restore
	stable.Metadata.JobRun = fmt.Sprintf("rollback-%d", failedGen)
	stable.Metadata.CheckpointFallback, stable.Metadata.SavepointFailed, stable.Metadata.Redeploy = false, false, false
	rs := &s.st.ReconciliationStatus
	rs.State = flinkv1beta1.ReconciliationRollingBack
	rs.LastStableSpec = stable.Encode()
	how := map[RestoreMode]string{
		RestoreHA: "recovering the job from HA metadata", RestoreSavepoint: "restoring the upgrade savepoint (the new JobManager never started)",
		RestoreNone: "starting the stateless job anew",
	}[restore]
	s.event(Warning, "Rollback", fmt.Sprintf("Generation %d did not become stable within %s; rolling back to the last stable spec (generation %d), %s",
		failedGen, s.in.Options.DeploymentReadyTimeout, stable.Generation(), how))
	s.res.RequeueAfter = immediately
	return true
}

// rollbackTarget reports whether the deployed spec must be rolled back, the spec to return to
// and how its job restores. The conditions are: rollback enabled; the reconciled
// spec deployed (not upgrading, not already rolled back) but not stable; a last stable spec
// that is not suspended and has the same Flink version as the current spec; the readiness
// timeout passed since the deploy; and state to restore from: HA metadata, or, for a savepoint
// upgrade whose JobManager never started, the upgrade's savepoint.
func (s *step) rollbackTarget() (*ReconciledSpec, RestoreMode, bool) {
	rs := s.st.ReconciliationStatus
	if !s.in.Options.RollbackEnabled || rs.State != flinkv1beta1.ReconciliationDeployed ||
		rs.LastStableSpec == "" || rs.LastStableSpec == rs.LastReconciledSpec {
		return nil, "", false
	}
	stable, err := s.stored(rs.LastStableSpec)
	switch {
	case err != nil || stable == nil:
		return nil, "", false
	case stable.Spec.Job != nil && stable.Spec.Job.EffectiveState() == flinkv1beta1.JobStateSuspended:
		return nil, "", false // never roll back to a suspended spec
	case stable.Spec.FlinkVersion != s.d.Spec.FlinkVersion:
		return nil, "", false // never roll back across a Flink version change
	}
	deadline := time.UnixMilli(rs.ReconciliationTimestamp).Add(s.in.Options.DeploymentReadyTimeout)
	if !s.in.Now.After(deadline) {
		s.requeue(deadline.Sub(s.in.Now) + time.Second)
		return nil, "", false
	}
	o := s.in.Observed
	job := s.last.Spec.Job
	switch {
	case job != nil && job.EffectiveUpgradeMode() == flinkv1beta1.UpgradeModeSavepoint && s.jobManagerNeverStarted() &&
		s.st.JobStatus.UpgradeSavepointPath != "":
		return stable, RestoreSavepoint, true
	case !o.HAMetadata:
		s.addObserved("RollbackImpossible", fmt.Sprintf("generation %d is not stable after %s, but it cannot be rolled back: no HA metadata to restore from",
			s.last.Generation(), s.in.Options.DeploymentReadyTimeout))
		return nil, "", false
	case job != nil && job.EffectiveUpgradeMode() == flinkv1beta1.UpgradeModeStateless:
		return stable, RestoreNone, true
	}
	return stable, RestoreHA, true
}

// rollBack drives the last stable spec onto the cluster with the upgrade machinery; deployed
// then ends in ROLLED_BACK.
func (s *step) rollBack() {
	stable, err := s.stored(s.st.ReconciliationStatus.LastStableSpec)
	if err != nil || stable == nil {
		s.fail("StatusCorrupt", "rolling back, but status.reconciliationStatus.lastStableSpec cannot be read; change the spec to upgrade instead")
		return
	}
	s.last, s.rollingBack = stable, true
	s.upgrade()
}

// deployedSpec is the spec running on the cluster: the last stable spec after a rollback,
// else the reconciled one.
func (s *step) deployedSpec() *ReconciledSpec {
	if s.st.ReconciliationStatus.State == flinkv1beta1.ReconciliationRolledBack {
		if stable, err := s.stored(s.st.ReconciliationStatus.LastStableSpec); err == nil && stable != nil {
			return stable
		}
	}
	return s.last
}
