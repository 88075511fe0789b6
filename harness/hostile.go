package harness

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/fakeflink/image"
	"github.com/flinkop/flinkop/fakeflink/kuberm"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// foreignObject is an object another tenant (or the cluster) owns in the world's namespace,
// and the resourceVersion it had when the checker was told of it.
type foreignObject struct {
	obj client.Object
	rv  string
}

// Foreign creates obj in the world's namespace as someone else's object (no controller
// reference to any Flink resource) and has the checker hold the operator to never changing
// or deleting it.
func (c *Checker) Foreign(obj client.Object) error {
	obj.SetNamespace(c.w.Namespace)
	if err := c.w.Client.Create(context.Background(), obj); err != nil {
		return fmt.Errorf("create foreign %T %s: %w", obj, obj.GetName(), err)
	}
	c.foreign = append(c.foreign, foreignObject{obj: obj.DeepCopyObject().(client.Object), rv: obj.GetResourceVersion()})
	return nil
}

// isForeign reports whether obj is one of the foreign objects (not the resource's to delete).
func (c *Checker) isForeign(obj client.Object) bool {
	for _, f := range c.foreign {
		if f.obj.GetName() == obj.GetName() && fmt.Sprintf("%T", f.obj) == fmt.Sprintf("%T", obj) {
			return true
		}
	}
	return false
}

// foreignUntouched: no object the world's resources do not own was changed or deleted.
func (c *Checker) foreignUntouched() []string {
	var out []string
	for _, f := range c.foreign {
		cur := f.obj.DeepCopyObject().(client.Object)
		err := c.w.Client.Get(context.Background(), client.ObjectKeyFromObject(f.obj), cur)
		switch {
		case err != nil:
			out = append(out, fmt.Sprintf("foreign %T %s: %v (an object no Flink resource owns was deleted)", f.obj, f.obj.GetName(), err))
		case cur.GetResourceVersion() != f.rv:
			out = append(out, fmt.Sprintf("foreign %T %s was written (resourceVersion %s → %s): an object no Flink resource owns", f.obj, f.obj.GetName(), f.rv, cur.GetResourceVersion()))
		}
	}
	return out
}

// operatorKeys are the configuration keys the operator sets or removes itself: per-field
// consistency does not hold the rendered configuration to the spec for them.
var operatorKeys = []string{
	"kubernetes.cluster-id", "kubernetes.namespace", "high-availability.cluster-id", "jobmanager.rpc.address",
	"rest.port", "pipeline.jars", "execution.target", "execution.shutdown-on-application-finish",
	"execution.submit-failed-job-on-application-error", "parallelism.default", "execution.savepoint.path",
	"execution.savepoint.ignore-unclaimed-state", "pipeline.classpaths", "$internal.flink.version",
	// resource.memory and resource.cpu win over these keys, as in the Apache operator.
	"jobmanager.memory.process.size", "taskmanager.memory.process.size", "kubernetes.jobmanager.cpu", "kubernetes.taskmanager.cpu",
}

// SpecRendered checks per-field consistency of a FlinkDeployment that runs its current spec:
// the rendered configuration holds every key of the spec's flinkConfiguration with its
// value, the logging files are the spec's, and the TaskManager's and JobManager's memory and
// CPU are the spec's. It returns the differences.
func (c *Checker) SpecRendered(d *flinkv1beta1.FlinkDeployment) []string {
	ctx := context.Background()
	var out []string
	var cm corev1.ConfigMap
	if err := c.w.Client.Get(ctx, client.ObjectKey{Namespace: d.Namespace, Name: act.ConfigMapName(d.Name)}, &cm); err != nil {
		return []string{fmt.Sprintf("%s: rendered configuration: %v", d.Name, err)}
	}
	// Read as the spec's Flink version reads its file (flink-conf.yaml line by line).
	version, _ := image.ParseVersion(string(d.Spec.FlinkVersion))
	_, rendered, _, err := image.ReadConfig(version, cm.Data)
	if err != nil {
		out = append(out, fmt.Sprintf("%s: rendered configuration does not parse: %v", d.Name, err))
	}
	conf, _ := d.Spec.FlinkConfiguration.Flatten()
	for _, k := range slices.Sorted(maps.Keys(conf)) {
		if !slices.Contains(operatorKeys, k) && !strings.HasPrefix(k, "$internal.") && rendered[k] != conf[k] {
			out = append(out, fmt.Sprintf("%s: configuration %s is %q in the spec, %q as rendered", d.Name, k, conf[k], rendered[k]))
		}
	}
	for k, v := range d.Spec.LogConfiguration {
		if cm.Data[k] != v {
			out = append(out, fmt.Sprintf("%s: logging file %s differs from the spec", d.Name, k))
		}
	}
	if res := jmResource(d); res != nil {
		out = append(out, c.resourcesRendered(d.Namespace, act.JobManagerName(d.Name), *res)...)
	}
	if res := tmResource(d); res != nil && d.Spec.Native() {
		out = append(out, c.nativeResourcesRendered(d, *res)...)
	} else if res != nil {
		out = append(out, c.resourcesRendered(d.Namespace, act.TaskManagerName(d.Name), *res)...)
	}
	return out
}

// nativeResourcesRendered checks the TaskManager pods Flink's resource manager made for a
// native cluster (none yet: nothing to check).
func (c *Checker) nativeResourcesRendered(d *flinkv1beta1.FlinkDeployment, res flinkv1beta1.Resource) []string {
	var pods corev1.PodList
	sel := client.MatchingLabels{kuberm.LabelApp: d.Name, kuberm.LabelType: kuberm.TypeNative, kuberm.LabelComponent: kuberm.ComponentTaskManager}
	if err := c.w.Client.List(context.Background(), &pods, client.InNamespace(d.Namespace), sel); err != nil {
		return []string{fmt.Sprintf("TaskManager pods of %s: %v", d.Name, err)}
	}
	var out []string
	for i := range pods.Items {
		out = append(out, limitsMatch("pod "+pods.Items[i].Name, pods.Items[i].Spec, res)...)
	}
	return out
}

func jmResource(d *flinkv1beta1.FlinkDeployment) *flinkv1beta1.Resource {
	if d.Spec.JobManager == nil || d.Spec.JobManager.Resources != nil {
		return nil
	}
	return &d.Spec.JobManager.Resource
}

func tmResource(d *flinkv1beta1.FlinkDeployment) *flinkv1beta1.Resource {
	if d.Spec.TaskManager == nil || d.Spec.TaskManager.Resources != nil {
		return nil
	}
	return &d.Spec.TaskManager.Resource
}

// resourcesRendered compares a Deployment's main container limits with the spec's shorthand.
func (c *Checker) resourcesRendered(ns, name string, res flinkv1beta1.Resource) []string {
	var dep appsv1.Deployment
	if err := c.w.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &dep); err != nil {
		return []string{fmt.Sprintf("Deployment %s: %v", name, err)}
	}
	return limitsMatch("Deployment "+name, dep.Spec.Template.Spec, res)
}

// limitsMatch compares the main container's limits of a pod spec with the spec's resources.
func limitsMatch(name string, spec corev1.PodSpec, res flinkv1beta1.Resource) []string {
	var limits corev1.ResourceList
	for _, ct := range spec.Containers {
		if ct.Name == act.MainContainer {
			limits = ct.Resources.Limits
		}
	}
	var out []string
	if res.Memory != "" {
		want, err := flinkv1beta1.ParseFlinkMemory(res.Memory)
		if got, ok := limits[corev1.ResourceMemory]; err != nil || !ok || got.Cmp(want) != 0 {
			out = append(out, fmt.Sprintf("%s: memory %q in the spec, limit %v as rendered", name, res.Memory, limits.Memory()))
		}
	}
	if res.CPU != nil {
		want := resource.NewMilliQuantity(int64(*res.CPU*1000), resource.DecimalSI)
		if got, ok := limits[corev1.ResourceCPU]; !ok || got.Cmp(*want) != 0 {
			out = append(out, fmt.Sprintf("%s: cpu %v in the spec, limit %v as rendered", name, *res.CPU, limits.Cpu()))
		}
	}
	return out
}
