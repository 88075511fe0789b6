package act

import (
	"maps"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/flink"
)

func renderJobManager(c Cluster, flinkConf map[string]string, tmpl corev1.PodTemplateSpec, opts roleOptions) *appsv1.Deployment {
	d, spec := c.Resource, c.Spec
	var res flinkv1beta1.Resource
	var reqs *corev1.ResourceRequirements
	replicas := int32(1)
	if jm := spec.JobManager; jm != nil {
		res, reqs = jm.Resource, jm.Resources
		if jm.Replicas != nil {
			replicas = *jm.Replicas
		}
	}
	// With HA, each JobManager advertises its own pod IP, as Apache's standalone decorators
	// start it (several replicas would otherwise all advertise the Service's name): the
	// kubelet puts _POD_IP_ADDRESS, which every JobManager container has, into the arguments.
	ha := flinkv1beta1.HAEnabled(flinkConf)
	args := []string{"jobmanager"}
	if ha {
		args = append(args, PodIPArg)
	}
	if j := spec.Job; j != nil {
		args = []string{"standalone-job"}
		if j.EntryClass != "" {
			args = append(args, "--job-classname", j.EntryClass)
		}
		if c.JobID != "" {
			args = append(args, "--job-id", c.JobID)
		}
		if ha {
			args = append(args, "--host", PodIPArg)
		}
		args = append(args, j.Args...)
	}
	ports := []corev1.ContainerPort{{Name: "rest", ContainerPort: RESTPort}, {Name: "jobmanager-rpc", ContainerPort: 6123}, {Name: "blobserver", ContainerPort: 6124}}
	opts.env = append(opts.env, corev1.EnvVar{Name: PodIPEnv, ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "status.podIP"},
	}})
	pods := podTemplate(c, ComponentJobManager, tmpl, opts, args, ports, res, reqs)
	addStartupProbe(&pods, flinkConf)
	dep := deployment(c, JobManagerName(d.Name), ComponentJobManager, replicas, pods)
	dep.Labels = mergeMaps(opts.labels, dep.Labels)
	dep.Annotations = mergeMaps(opts.annotations, map[string]string{AnnotationGeneration: strconv.FormatInt(c.Generation, 10)})
	if c.Run != "" {
		dep.Annotations[AnnotationRun] = c.Run
	}
	if ssl, err := flink.RESTSSLOf(flinkConf); err == nil && ssl.Enabled {
		dep.Annotations[AnnotationRESTSSL] = ssl.String()
	}
	dep.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	return dep
}

func renderTaskManager(c Cluster, conf map[string]string, tmpl corev1.PodTemplateSpec, opts roleOptions) *appsv1.Deployment {
	d, spec := c.Resource, c.Spec
	var res flinkv1beta1.Resource
	var reqs *corev1.ResourceRequirements
	var replicas *int32
	if tm := spec.TaskManager; tm != nil {
		res, reqs, replicas = tm.Resource, tm.Resources, tm.Replicas
	}
	n := TaskManagerReplicas(spec, conf)
	if replicas != nil {
		n = *replicas
	}
	ports := []corev1.ContainerPort{{Name: "taskmanager-rpc", ContainerPort: 6122}}
	dep := deployment(c, TaskManagerName(d.Name), ComponentTaskManager, n, podTemplate(c, ComponentTaskManager, tmpl, opts, []string{"taskmanager"}, ports, res, reqs))
	dep.Labels = mergeMaps(opts.labels, dep.Labels)
	if len(opts.annotations) > 0 {
		dep.Annotations = maps.Clone(opts.annotations)
	}
	return dep
}

// PodIPEnv is the JobManager container's variable holding its pod IP, and PodIPArg its
// reference in the arguments, which the kubelet expands (Flink's _POD_IP_ADDRESS).
const (
	PodIPEnv = "_POD_IP_ADDRESS"
	PodIPArg = "$(" + PodIPEnv + ")"
)

// TaskManagerReplicas is flinkv1beta1.TaskManagerReplicas (the rendered TaskManager count).
func TaskManagerReplicas(spec flinkv1beta1.FlinkDeploymentSpec, conf map[string]string) int32 {
	return flinkv1beta1.TaskManagerReplicas(spec, conf)
}

func deployment(c Cluster, name, component string, replicas int32, tmpl corev1.PodTemplateSpec) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: objectMeta(c.Resource, name, component),
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: Selector(c.Resource.Name, component)},
			Template: tmpl,
		},
	}
}

// podTemplate adds to tmpl, the role's merged pod template (roleTemplates), the operator's
// settings for the main container and the role's kubernetes.* options (opts).
func podTemplate(c Cluster, component string, tmpl corev1.PodTemplateSpec, opts roleOptions, args []string,
	ports []corev1.ContainerPort, res flinkv1beta1.Resource, reqs *corev1.ResourceRequirements,
) corev1.PodTemplateSpec {
	spec := c.Spec
	tmpl.Labels = mergeMaps(tmpl.Labels, Selector(c.Resource.Name, component))
	tmpl.Labels[LabelManagedBy] = ManagedBy
	if spec.ServiceAccount != "" {
		tmpl.Spec.ServiceAccountName = spec.ServiceAccount
	}
	tmpl.Spec.Volumes = upsertVolume(tmpl.Spec.Volumes, corev1.Volume{
		Name: "flink-config-volume",
		VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: ConfigMapName(c.Resource.Name)},
		}},
	})
	i := mainContainerIndex(&tmpl.Spec)
	main := &tmpl.Spec.Containers[i]
	main.Image = spec.Image
	if spec.ImagePullPolicy != "" {
		main.ImagePullPolicy = corev1.PullPolicy(spec.ImagePullPolicy)
	}
	main.Args = args
	for _, p := range ports {
		if !hasPort(main.Ports, p.ContainerPort) {
			main.Ports = append(main.Ports, p)
		}
	}
	if main.TerminationMessagePolicy == "" {
		// A JobManager or TaskManager that exits prints why last: the kubelet keeps that
		// tail of its log as the termination message, which status.error then shows.
		main.TerminationMessagePolicy = corev1.TerminationMessageFallbackToLogsOnError
	}
	main.Env = append(main.Env, corev1.EnvVar{Name: "FLINK_CONF_DIR", Value: ConfDir})
	main.VolumeMounts = append(main.VolumeMounts, corev1.VolumeMount{Name: "flink-config-volume", MountPath: ConfDir})
	if r := resolveResources(res, reqs); len(r.Container.Requests) > 0 || len(r.Container.Limits) > 0 {
		main.Resources = r.Container
	}
	opts.apply(&tmpl, i)
	return tmpl
}

// resourceList turns the resource shorthand into Kubernetes quantities. Flink's "2048m" memory
// means 2048 MiB; anything Kubernetes already understands is kept.
func resourceList(r flinkv1beta1.Resource) corev1.ResourceList {
	out := corev1.ResourceList{}
	if r.CPU != nil {
		out[corev1.ResourceCPU] = *resource.NewMilliQuantity(int64(*r.CPU*1000), resource.DecimalSI)
	}
	if q, ok := flinkMemory(r.Memory); ok {
		out[corev1.ResourceMemory] = q
	}
	if q, err := resource.ParseQuantity(r.EphemeralStorage); err == nil && r.EphemeralStorage != "" {
		out[corev1.ResourceEphemeralStorage] = q
	}
	return out
}

func flinkMemory(s string) (resource.Quantity, bool) {
	if s == "" {
		return resource.Quantity{}, false
	}
	q, err := flinkv1beta1.ParseFlinkMemory(s)
	return q, err == nil
}
