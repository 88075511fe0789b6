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

	"github.com/flinkop/flinkop/fakeflink/image"
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
// (InitTaskManagerDecorator, CmdTaskManagerDecorator, FlinkConfMountDecorator,
// MountSecretsDecorator, EnvSecretsDecorator, HadoopConfMountDecorator): the template
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
	if strings.EqualFold(first(conf, "kubernetes.hostnetwork.enabled"), "true") {
		spec.HostNetwork, spec.DNSPolicy = true, corev1.DNSClusterFirstWithHostNet
	}
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
	if p := first(conf, "kubernetes.container.image.pull-policy"); p != "" {
		c.ImagePullPolicy = corev1.PullPolicy(p)
	} else if c.ImagePullPolicy == "" {
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
	requests, limits, err := resources(conf)
	if err != nil {
		return err
	}
	c.Resources.Requests = union(c.Resources.Requests, requests)
	c.Resources.Limits = union(c.Resources.Limits, limits)
	for _, k := range sortedKeys(conf) {
		if v, ok := strings.CutPrefix(k, "containerized.taskmanager.env."); ok {
			c.Env = append(withoutEnv(c.Env, v), corev1.EnvVar{Name: v, Value: conf[k]})
		}
	}
	c.VolumeMounts = append(withoutMount(c.VolumeMounts, ConfigVolume), corev1.VolumeMount{Name: ConfigVolume, MountPath: ConfDir})
	return mounts(conf, spec, c)
}

// mounts applies the options that mount or pass things into the main container c: Secrets
// (MountSecretsDecorator), Secret keys as variables (EnvSecretsDecorator), the log directory
// and the Hadoop configuration ConfigMap (HadoopConfMountDecorator).
func mounts(conf map[string]string, spec *corev1.PodSpec, c *corev1.Container) error {
	secrets, err := parseMap(conf["kubernetes.secrets"])
	if err != nil {
		return optionErr("kubernetes.secrets", err)
	}
	for _, name := range sortedKeys(secrets) {
		vol := name + "-volume"
		spec.Volumes = append(withoutVolume(spec.Volumes, vol), corev1.Volume{Name: vol, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: name}}})
		c.VolumeMounts = append(withoutMount(c.VolumeMounts, vol), corev1.VolumeMount{Name: vol, MountPath: secrets[name]})
	}
	refs, err := parseMaps(conf["kubernetes.env.secretKeyRef"])
	if err != nil {
		return optionErr("kubernetes.env.secretKeyRef", err)
	}
	for _, r := range refs {
		if r["env"] == "" || r["secret"] == "" || r["key"] == "" {
			return optionErr("kubernetes.env.secretKeyRef", fmt.Errorf("%v needs env, secret and key", r))
		}
		c.Env = append(withoutEnv(c.Env, r["env"]), corev1.EnvVar{Name: r["env"], ValueFrom: &corev1.EnvVarSource{
			SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: r["secret"]}, Key: r["key"]},
		}})
	}
	if dir := first(conf, "kubernetes.flink.log.dir"); dir != "" {
		c.Env = append(withoutEnv(c.Env, "FLINK_LOG_DIR"), corev1.EnvVar{Name: "FLINK_LOG_DIR", Value: dir})
	}
	if cm := first(conf, "kubernetes.hadoop.conf.config-map.name"); cm != "" {
		const vol, dir = "hadoop-config-volume", "/opt/hadoop/conf"
		spec.Volumes = append(withoutVolume(spec.Volumes, vol), corev1.Volume{Name: vol, VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm}},
		}})
		c.VolumeMounts = append(withoutMount(c.VolumeMounts, vol), corev1.VolumeMount{Name: vol, MountPath: dir})
		c.Env = append(withoutEnv(c.Env, "HADOOP_CONF_DIR"), corev1.EnvVar{Name: "HADOOP_CONF_DIR", Value: dir})
	}
	return nil
}

// resources are the TaskManager container's requests, taskmanager.memory.process.size and
// kubernetes.taskmanager.cpu (default: the number of slots), and its limits, the requests
// times kubernetes.taskmanager.{cpu,memory}.limit-factor (default 1). Other resources of the
// template (ephemeral storage, extended resources) are kept.
func resources(conf map[string]string) (requests, limits corev1.ResourceList, err error) {
	requests, limits = corev1.ResourceList{}, corev1.ResourceList{}
	cpuFactor, err := factor(conf, "kubernetes.taskmanager.cpu.limit-factor")
	if err != nil {
		return nil, nil, err
	}
	memFactor, err := factor(conf, "kubernetes.taskmanager.memory.limit-factor")
	if err != nil {
		return nil, nil, err
	}
	if s := conf["taskmanager.memory.process.size"]; s != "" {
		size, err := image.ParseMemorySize(s)
		if err != nil {
			return nil, nil, optionErr("taskmanager.memory.process.size", err)
		}
		b := int64(size)
		requests[corev1.ResourceMemory] = *resource.NewQuantity(b, resource.BinarySI)
		limits[corev1.ResourceMemory] = *resource.NewQuantity(int64(float64(b)*memFactor), resource.BinarySI)
	}
	cpu := first(conf, "kubernetes.taskmanager.cpu", "taskmanager.numberOfTaskSlots")
	if cpu == "" {
		cpu = "1"
	}
	q, err := resource.ParseQuantity(cpu)
	if err != nil {
		return nil, nil, optionErr("kubernetes.taskmanager.cpu", err)
	}
	requests[corev1.ResourceCPU] = q
	limits[corev1.ResourceCPU] = *resource.NewMilliQuantity(int64(float64(q.MilliValue())*cpuFactor), resource.DecimalSI)
	return requests, limits, nil
}

// factor reads a limit factor (≥ 1; default 1).
func factor(conf map[string]string, key string) (float64, error) {
	v := first(conf, key)
	if v == "" {
		return 1, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 1 {
		return 0, optionErr(key, fmt.Errorf("%q is not a factor of at least 1", v))
	}
	return f, nil
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
