package harness

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

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
	ctx, ns := context.Background(), client.InNamespace(c.w.Namespace)
	var ds flinkv1beta1.FlinkDeploymentList
	var js flinkv1beta1.FlinkSessionJobList
	if err := c.w.Client.List(ctx, &ds, ns); err != nil {
		return []string{"list deployments: " + err.Error()}
	}
	if err := c.w.Client.List(ctx, &js, ns); err != nil {
		return []string{"list session jobs: " + err.Error()}
	}
	var periodic []string
	count := func(kind, name string, st *flinkv1beta1.JobStatus) {
		sp, cp := st.SavepointInfo, st.CheckpointInfo
		if (sp != nil && sp.TriggerID != "" && sp.TriggerType == flinkv1beta1.SnapshotTriggerPeriodic) ||
			(cp != nil && cp.TriggerID != "" && cp.TriggerType == flinkv1beta1.SnapshotTriggerPeriodic) {
			periodic = append(periodic, kind+" "+name)
		}
	}
	for i := range ds.Items {
		count("FlinkDeployment", ds.Items[i].Name, &ds.Items[i].Status.JobStatus)
	}
	for i := range js.Items {
		count("FlinkSessionJob", js.Items[i].Name, &js.Items[i].Status.JobStatus)
	}
	if len(periodic) > limit {
		return []string{fmt.Sprintf("N4: %d periodic snapshots in flight (%v), more than kubernetes.operator.snapshot.max-concurrent %d", len(periodic), periodic, limit)}
	}
	return nil
}
