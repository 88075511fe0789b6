package harness

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/decide"
	"github.com/flinkop/flinkop/operator/observe"
)

// rollbackAllowed: a rollback happens only under the rollback conditions (invariant 6): when
// it starts, the resource enables it, the spec it returns to is not suspended, has the
// same Flink version, the failed spec had its readiness timeout, and there is state to restore
// (HA metadata, or the upgrade savepoint of a JobManager that never started).
func (c *Checker) rollbackAllowed(d *flinkv1beta1.FlinkDeployment) []string {
	rs, lc := d.Status.ReconciliationStatus, d.Status.LifecycleState
	prev := c.lastState[d.Name]
	c.lastState[d.Name] = rs.State
	if rs.State != flinkv1beta1.ReconciliationRollingBack && rs.State != flinkv1beta1.ReconciliationRolledBack &&
		lc != flinkv1beta1.LifecycleRollingBack && lc != flinkv1beta1.LifecycleRolledBack {
		return nil
	}
	conf, _ := d.Spec.FlinkConfiguration.Flatten()
	opts, _ := c.w.Options.With(config.OperatorKeys(conf))
	rollback := func(s flinkv1beta1.ReconciliationState) bool {
		return s == flinkv1beta1.ReconciliationRollingBack || s == flinkv1beta1.ReconciliationRolledBack
	}
	// Judged when the rollback starts: a person may turn rollbacks off once one happened (a
	// change the operator applies without a redeploy), and the resource stays ROLLED_BACK.
	started := rollback(rs.State) && (!rollback(prev) || rs.State == flinkv1beta1.ReconciliationRollingBack && prev != rs.State)
	if started && !opts.RollbackEnabled {
		return []string{fmt.Sprintf("%s: %s/%s although kubernetes.operator.deployment.rollback.enabled is not true (invariant 6)", d.Name, rs.State, lc)}
	}
	if prev == rs.State || rs.State != flinkv1beta1.ReconciliationRollingBack {
		return nil
	}
	stable, err1 := decide.ParseReconciledSpec(rs.LastStableSpec)
	failed, err2 := decide.ParseReconciledSpec(rs.LastReconciledSpec)
	if err1 != nil || err2 != nil || stable == nil || failed == nil {
		return []string{fmt.Sprintf("%s: rolling back without a readable stable and reconciled spec (invariant 6)", d.Name)}
	}
	var out []string
	bad := func(why string) {
		out = append(out, fmt.Sprintf("%s: rollback started although %s (invariant 6)", d.Name, why))
	}
	if stable.Spec.Job != nil && stable.Spec.Job.EffectiveState() == flinkv1beta1.JobStateSuspended {
		bad("the last stable spec is suspended")
	}
	if stable.Spec.FlinkVersion != failed.Spec.FlinkVersion {
		bad("the Flink version changed")
	}
	if since := c.w.Now().Sub(time.UnixMilli(rs.ReconciliationTimestamp)); since < opts.DeploymentReadyTimeout {
		bad(fmt.Sprintf("the spec was deployed only %s ago (readiness timeout %s)", since, opts.DeploymentReadyTimeout))
	}
	if stable.Metadata.Restore != decide.RestoreSavepoint && !c.haMetadataExists(d) {
		bad("there is no HA metadata to restore from")
	}
	return out
}

func (c *Checker) haMetadataExists(d *flinkv1beta1.FlinkDeployment) bool {
	var cms corev1.ConfigMapList
	err := c.w.Client.List(context.Background(), &cms, client.InNamespace(c.w.Namespace), observe.HASelector(d))
	return err == nil && slices.ContainsFunc(cms.Items, func(cm corev1.ConfigMap) bool { return observe.IsJobHAConfigMap(&cm) })
}
