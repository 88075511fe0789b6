package harness

import (
	"fmt"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// snapshotsBounded checks that no more periodic snapshots are in flight across the world's
// FlinkDeployments and FlinkSessionJobs than kubernetes.operator.snapshot.max-concurrent
// allows (World.SnapshotMaxConcurrent; 0: no bound). Manual and upgrade snapshots never wait
// for a slot, so only periodic ones are counted.
func (c *Checker) snapshotsBounded() []string {
	limit := c.w.SnapshotMaxConcurrent
	if limit <= 0 {
		return nil
	}
	jobs, err := c.jobStatuses()
	if err != nil {
		return []string{err.Error()}
	}
	var periodic []string
	for _, j := range jobs {
		sp, cp := j.status.SavepointInfo, j.status.CheckpointInfo
		if (sp != nil && sp.TriggerID != "" && sp.TriggerType == flinkv1beta1.SnapshotTriggerPeriodic) ||
			(cp != nil && cp.TriggerID != "" && cp.TriggerType == flinkv1beta1.SnapshotTriggerPeriodic) {
			periodic = append(periodic, j.kind+" "+j.name)
		}
	}
	if len(periodic) > limit {
		return []string{fmt.Sprintf("N4: %d periodic snapshots in flight (%v), more than kubernetes.operator.snapshot.max-concurrent %d", len(periodic), periodic, limit)}
	}
	return nil
}
