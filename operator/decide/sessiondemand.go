package decide

import (
	"strconv"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// keyMaxSlots is Flink's bound on the slots of a cluster whose resource manager starts
// TaskManagers (slotmanager.number-of-slots.max; unset: no bound).
const keyMaxSlots = "slotmanager.number-of-slots.max"

// WithSessionDemand is the resource the operator reconciles for a session cluster in native
// mode without taskManager.replicas: d with as many TaskManagers as its session jobs need
// (slots, the sum of their parallelism, over the TaskManager's slots). Flink's native resource
// manager would start TaskManagers for the jobs' slot requests; Flinkop renders native mode
// with a TaskManager Deployment, so it sizes that Deployment instead. A change of the demand
// is then a change of taskManager.replicas like any other: a SCALE, applied in place. d itself
// is returned for an application cluster, standalone mode, set replicas, or a demand the
// rendered count meets already (it never shrinks below that). Flink's
// slotmanager.number-of-slots.max bounds the slots, and the count is bounded as
// taskManager.replicas is.
func WithSessionDemand(d *flinkv1beta1.FlinkDeployment, slots int) *flinkv1beta1.FlinkDeployment {
	if slots <= 0 || !NeedsSessionDemand(d) {
		return d
	}
	conf, err := d.Spec.Conf()
	if err != nil {
		return d
	}
	per := flinkv1beta1.TaskSlots(conf)
	if limit, err := strconv.Atoi(conf[keyMaxSlots]); err == nil && limit > 0 {
		slots = min(slots, limit) // Flink's own bound on the slots its resource manager starts
	}
	n := int32(min(max(1, (slots+per-1)/per), flinkv1beta1.MaxReplicas)) // bounded as a spec's replicas are
	if n <= flinkv1beta1.TaskManagerReplicas(d.Spec, conf) {
		return d // the rendered count has the slots already: no change to record
	}
	out := d.DeepCopy()
	if out.Spec.TaskManager == nil {
		out.Spec.TaskManager = &flinkv1beta1.TaskManagerSpec{}
	}
	out.Spec.TaskManager.Replicas = &n
	return out
}

// NeedsSessionDemand reports whether WithSessionDemand may size d, so that the observer reads
// its session jobs only then.
func NeedsSessionDemand(d *flinkv1beta1.FlinkDeployment) bool {
	spec := d.Spec
	return spec.Job == nil && spec.Mode != flinkv1beta1.DeploymentModeStandalone &&
		(spec.TaskManager == nil || spec.TaskManager.Replicas == nil) && d.DeletionTimestamp == nil
}
