package harness

import (
	"fmt"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// scalingOnlyWhenSteady: the autoscaler decides only for a deployed, stable spec whose job
// runs, with no savepoint or checkpoint in flight (invariant 8), so no scaling decision lands
// in an upgrade or a savepoint. Each ScalingReport Event is judged by the status the reconcile
// that recorded it wrote (the checker runs after every step).
func (c *Checker) scalingOnlyWhenSteady(d *flinkv1beta1.FlinkDeployment) []string {
	n := 0
	for _, e := range c.w.events.events {
		if e.Object == d.Name && e.Reason == "ScalingReport" {
			n++
		}
	}
	if n <= c.scalingSeen[d.Name] {
		return nil
	}
	c.scalingSeen[d.Name] = n
	st := d.Status
	rs := st.ReconciliationStatus
	var why string
	switch {
	case rs.State != flinkv1beta1.ReconciliationDeployed:
		why = "reconciliation " + string(rs.State)
	case rs.LastStableSpec != rs.LastReconciledSpec:
		why = "the deployed spec not yet stable"
	case st.JobStatus.State != flinkv1beta1.JobStatusRunning:
		why = "job " + string(st.JobStatus.State)
	case st.JobStatus.SavepointInfo != nil && st.JobStatus.SavepointInfo.TriggerID != "":
		why = "a savepoint in flight"
	case st.JobStatus.CheckpointInfo != nil && st.JobStatus.CheckpointInfo.TriggerID != "":
		why = "a checkpoint in flight"
	default:
		return nil
	}
	return []string{fmt.Sprintf("%s: a scaling decision with %s (invariant 8)", d.Name, why)}
}
