package kuberm

import (
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// ParseTemplate reads a pod template file as Flink's KubernetesUtils#loadPodFromTemplateFile
// does: a Pod in YAML; an empty file is an empty pod.
func ParseTemplate(data string) (*corev1.Pod, error) {
	pod := &corev1.Pod{}
	if strings.TrimSpace(data) == "" {
		return pod, nil
	}
	if err := yaml.Unmarshal([]byte(data), pod); err != nil {
		return nil, fmt.Errorf("could not load the pod template file: %w", err)
	}
	return pod, nil
}

// TaskManagerPod is the pod Flink's decorators make for a TaskManager of a native cluster
// (InitTaskManagerDecorator, CmdTaskManagerDecorator, FlinkConfMountDecorator): the template
// (nil: an empty pod) with Flink's name, labels, owner, service account, scheduling options,
// main container (image, command, resources, port) and configuration volume over it; the
// template's own fields stay where Flink leaves them.
func TaskManagerPod(conf map[string]string, template *corev1.Pod, name string, owner metav1.OwnerReference) (*corev1.Pod, error) {
	pod := &corev1.Pod{}
	if template != nil {
		pod = template.DeepCopy()
	}
	clusterID := conf["kubernetes.cluster-id"]
	pod.TypeMeta = metav1.TypeMeta{}
	pod.Name, pod.Namespace = name, conf["kubernetes.namespace"]
	pod.OwnerReferences = []metav1.OwnerReference{owner}
	var errs []error
	userLabels, err := parseMap(conf["kubernetes.taskmanager.labels"])
	errs = append(errs, optionErr("kubernetes.taskmanager.labels", err))
	pod.Labels = union(pod.Labels, userLabels, Selector(clusterID))
	ann, err := parseMap(conf["kubernetes.taskmanager.annotations"])
	errs = append(errs, optionErr("kubernetes.taskmanager.annotations", err))
	if len(ann) > 0 {
		pod.Annotations = union(pod.Annotations, ann)
	}
	spec := &pod.Spec
	if sa := first(conf, "kubernetes.taskmanager.service-account", "kubernetes.service-account"); sa != "" {
		spec.ServiceAccountName = sa
	}
	spec.RestartPolicy = corev1.RestartPolicyNever
	for _, s := range parseList(conf["kubernetes.container.image.pull-secrets"]) {
		spec.ImagePullSecrets = append(spec.ImagePullSecrets, corev1.LocalObjectReference{Name: s})
	}
	selector, err := parseMap(conf["kubernetes.taskmanager.node-selector"])
	errs = append(errs, optionErr("kubernetes.taskmanager.node-selector", err))
	if len(selector) > 0 {
		spec.NodeSelector = union(spec.NodeSelector, selector)
	}
	tolerations, err := parseTolerations(conf["kubernetes.taskmanager.tolerations"])
	errs = append(errs, optionErr("kubernetes.taskmanager.tolerations", err))
	spec.Tolerations = append(spec.Tolerations, tolerations...)
	spec.Volumes = append(withoutVolume(spec.Volumes, ConfigVolume), corev1.Volume{Name: ConfigVolume, VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: ConfigMapName(clusterID)}},
	}})
	errs = append(errs, mainContainer(conf, spec, name))
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return pod, nil
}

// mainContainer sets flink-main-container (the template's, or a new first container).
func mainContainer(conf map[string]string, spec *corev1.PodSpec, name string) error {
	i := -1
	for j := range spec.Containers {
		if spec.Containers[j].Name == MainContainer {
			i = j
		}
	}
	if i < 0 {
		spec.Containers = append([]corev1.Container{{Name: MainContainer}}, spec.Containers...)
		i = 0
	}
	c := &spec.Containers[i]
	if img := conf["kubernetes.container.image.ref"]; img != "" {
		c.Image = img
	}
	c.ImagePullPolicy = corev1.PullPolicy(first(conf, "kubernetes.container.image.pull-policy"))
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = corev1.PullIfNotPresent
	}
	entry := first(conf, "kubernetes.entry.path")
	if entry == "" {
		entry = DefaultEntryPath
	}
	c.Command = []string{entry}
	script := TaskManagerScript + " -D taskmanager.resource-id=" + name
	if extra := conf["kubernetes.taskmanager.entrypoint.args"]; extra != "" {
		script += " " + extra
	}
	c.Args = []string{"bash", "-c", script}
	port := DefaultTaskManagerRPC
	if p, err := strconv.Atoi(first(conf, "taskmanager.rpc.port")); err == nil && p > 0 {
		port = p
	}
	c.Ports = append(withoutPort(c.Ports, "taskmanager-rpc"), corev1.ContainerPort{Name: "taskmanager-rpc", ContainerPort: int32(port)})
	res, err := resources(conf)
	if err != nil {
		return err
	}
	c.Resources.Requests = union(c.Resources.Requests, res)
	c.Resources.Limits = union(c.Resources.Limits, res)
	for _, k := range sortedKeys(conf) {
		if v, ok := strings.CutPrefix(k, "containerized.taskmanager.env."); ok {
			c.Env = append(withoutEnv(c.Env, v), corev1.EnvVar{Name: v, Value: conf[k]})
		}
	}
	c.VolumeMounts = append(withoutMount(c.VolumeMounts, ConfigVolume), corev1.VolumeMount{Name: ConfigVolume, MountPath: ConfDir})
	return nil
}

// resources are the TaskManager container's requests (and, at the default limit factors of 1,
// limits): taskmanager.memory.process.size and kubernetes.taskmanager.cpu, which defaults to
// the number of slots.
func resources(conf map[string]string) (corev1.ResourceList, error) {
	out := corev1.ResourceList{}
	if s := conf["taskmanager.memory.process.size"]; s != "" {
		b, err := parseMemory(s)
		if err != nil {
			return nil, optionErr("taskmanager.memory.process.size", err)
		}
		out[corev1.ResourceMemory] = *resource.NewQuantity(b, resource.BinarySI)
	}
	cpu := first(conf, "kubernetes.taskmanager.cpu", "taskmanager.numberOfTaskSlots")
	if cpu == "" {
		cpu = "1"
	}
	q, err := resource.ParseQuantity(cpu)
	if err != nil {
		return nil, optionErr("kubernetes.taskmanager.cpu", err)
	}
	out[corev1.ResourceCPU] = q
	return out, nil
}

// parseTolerations reads kubernetes.*.tolerations.
func parseTolerations(s string) ([]corev1.Toleration, error) {
	items, err := parseMaps(s)
	if err != nil {
		return nil, err
	}
	out := make([]corev1.Toleration, 0, len(items))
	for _, m := range items {
		t := corev1.Toleration{}
		for k, v := range m {
			switch strings.ToLower(k) {
			case "key":
				t.Key = v
			case "operator":
				t.Operator = corev1.TolerationOperator(v)
			case "value":
				t.Value = v
			case "effect":
				t.Effect = corev1.TaintEffect(v)
			case "tolerationseconds":
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("tolerationSeconds %q: %w", v, err)
				}
				t.TolerationSeconds = &n
			}
		}
		out = append(out, t)
	}
	return out, nil
}

func optionErr(key string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", key, err)
}

func first(conf map[string]string, keys ...string) string {
	for _, k := range keys {
		if v := strings.TrimSpace(conf[k]); v != "" {
			return v
		}
	}
	return ""
}

func union[K comparable, V any](ms ...map[K]V) map[K]V {
	out := map[K]V{}
	for _, m := range ms {
		maps.Copy(out, m)
	}
	return out
}
