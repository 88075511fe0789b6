package act

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
	"github.com/flinkop/flinkop/operator/flink"
)

// scale applies a SCALE change in place: a standalone cluster's TaskManager Deployment gets the
// replicas of the new spec (nothing else of it changes, so no pod restarts), and a new parallelism goes to
// the running job as resource requirements for every vertex. Both steps are idempotent.
func (e *Executor) scale(ctx context.Context, d *flinkv1beta1.FlinkDeployment, a decide.Action) error {
	conf, err := a.Deploy.Spec.Conf()
	if err != nil {
		return fmt.Errorf("flinkConfiguration: %w", err)
	}
	if err := e.scaleTaskManagers(ctx, d, a.Deploy.Spec, conf); err != nil {
		return err
	}
	if a.Parallelism == 0 {
		return nil
	}
	api := e.Flink(d)
	current, err := api.ResourceRequirements(ctx, a.JobID)
	if err != nil {
		return wrap("get resource requirements", err)
	}
	next := flink.ResourceRequirements{}
	for vertex := range current {
		p := a.Parallelism
		if o, ok := a.Overrides[vertex]; ok {
			p = o
		}
		next[vertex] = flink.VertexRequirements{Parallelism: flink.ParallelismBounds{LowerBound: 1, UpperBound: p}}
	}
	return wrap("set resource requirements", api.SetResourceRequirements(ctx, a.JobID, next))
}

// scaleTaskManagers gives a standalone cluster's TaskManager Deployment the spec's replicas; a
// native cluster has none (Flink's resource manager sizes its TaskManagers to the job).
func (e *Executor) scaleTaskManagers(ctx context.Context, d *flinkv1beta1.FlinkDeployment, spec flinkv1beta1.FlinkDeploymentSpec, conf map[string]string) error {
	if spec.Native() {
		return nil
	}
	want := TaskManagerReplicas(spec, conf)
	var tm appsv1.Deployment
	if err := e.Client.Get(ctx, client.ObjectKey{Namespace: d.Namespace, Name: TaskManagerName(d.Name)}, &tm); err != nil {
		return wrap("get TaskManager deployment", err)
	}
	if tm.Spec.Replicas != nil && *tm.Spec.Replicas == want {
		return nil
	}
	// A patch of the replicas alone: the cached Deployment has no pod template (see
	// StripContent), so an update of it would send an empty one.
	patch := client.MergeFrom(tm.DeepCopy())
	tm.Spec.Replicas = &want
	return wrap("scale TaskManager deployment", e.Client.Patch(ctx, &tm, patch))
}
