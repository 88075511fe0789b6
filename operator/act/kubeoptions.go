package act

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/flinkop/flinkop/operator/config"
)

// Flink's own kubernetes.* options that shape the pods and Services, applied as Flink's
// decorators apply them to the Apache operator's standalone clusters (its standalone
// JobManager and TaskManager factories): each role's labels, annotations, node selector,
// tolerations and service account; both roles' image pull secrets, secret volumes, secret
// environment variables, log directory and Hadoop configuration; the JobManager's host network; the REST Service's
// type and annotations and the internal Service's annotations. docs/flink-contract.md lists
// them with their sources, and what differs.

// roleOptions are one role's kubernetes.* options.
type roleOptions struct {
	labels, annotations, nodeSelector map[string]string
	tolerations                       []corev1.Toleration
	serviceAccount                    string
	env                               []corev1.EnvVar
	volumes                           []corev1.Volume
	pullSecrets                       []corev1.LocalObjectReference
	mounts                            []corev1.VolumeMount
	hostNetwork                       bool
}

// reservedLabels are the operator's labels on its Deployments and pods, which select them:
// an option may not set them.
var reservedLabels = []string{LabelApp, LabelComponent, LabelManagedBy}

// reservedAnnotationPrefix starts the operator's annotations (AnnotationGeneration, …),
// which it reads back: an option may not set them.
const reservedAnnotationPrefix = "flinkop.io/"

// parseSharedOptions reads from conf, the cluster's effective configuration, the options
// both roles get alike: image pull secrets, secret volumes and variables, the log directory
// and the Hadoop configuration. Read once, a malformed one is reported once.
func parseSharedOptions(conf map[string]string) (roleOptions, error) {
	var o roleOptions
	var errs []string
	if err := o.secrets(conf); err != nil {
		errs = append(errs, err.Error())
	}
	secrets, err := config.SplitEscaped(conf["kubernetes.container.image.pull-secrets"], ';')
	if err != nil {
		errs = append(errs, fmt.Sprintf("kubernetes.container.image.pull-secrets: %v", err))
	}
	for _, name := range secrets {
		if name != "" {
			o.pullSecrets = append(o.pullSecrets, corev1.LocalObjectReference{Name: name})
		}
	}
	if dir := conf["kubernetes.flink.log.dir"]; dir != "" {
		o.env = append(o.env, corev1.EnvVar{Name: "FLINK_LOG_DIR", Value: dir})
	}
	if cm := conf["kubernetes.hadoop.conf.config-map.name"]; cm != "" {
		o.volumes = append(o.volumes, corev1.Volume{Name: "hadoop-config-volume", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm}},
		}})
		o.mounts = append(o.mounts, corev1.VolumeMount{Name: "hadoop-config-volume", MountPath: "/opt/hadoop/conf"})
		o.env = append(o.env, corev1.EnvVar{Name: "HADOOP_CONF_DIR", Value: "/opt/hadoop/conf"})
	}
	return o, optionErrors(errs)
}

// parseRoleOptions reads role's ("jobmanager" or "taskmanager") own options from conf, the
// cluster's effective configuration, over shared (parseSharedOptions; its lists are copied,
// so that one role's additions do not reach the other's).
func parseRoleOptions(conf map[string]string, role string, shared roleOptions) (roleOptions, error) {
	o := roleOptions{
		env: slices.Clone(shared.env), volumes: slices.Clone(shared.volumes), mounts: slices.Clone(shared.mounts),
		pullSecrets: slices.Clone(shared.pullSecrets),
	}
	var errs []string
	mapOf := func(key string) map[string]string {
		m, err := config.ParseFlinkMap(conf[key])
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", key, err))
		}
		return m
	}
	prefix := "kubernetes." + role + "."
	o.labels = mapOf(prefix + "labels")
	for _, k := range reservedLabels {
		if _, ok := o.labels[k]; ok {
			errs = append(errs, fmt.Sprintf("%slabels: %s is the operator's label, which selects the pods", prefix, k))
		}
	}
	o.annotations = mapOf(prefix + "annotations")
	for k := range o.annotations {
		if strings.HasPrefix(k, reservedAnnotationPrefix) {
			errs = append(errs, fmt.Sprintf("%sannotations: %s is the operator's annotation", prefix, k))
		}
	}
	o.nodeSelector = mapOf(prefix + "node-selector")
	tols, err := tolerations(conf[prefix+"tolerations"])
	if err != nil {
		errs = append(errs, fmt.Sprintf("%stolerations: %v", prefix, err))
	}
	o.tolerations = tols
	o.serviceAccount = conf[prefix+"service-account"]
	if role == "jobmanager" {
		if v, ok := conf["kubernetes.hostnetwork.enabled"]; ok {
			switch b := strings.TrimSpace(v); {
			case strings.EqualFold(b, "true"):
				o.hostNetwork = true
			case !strings.EqualFold(b, "false"):
				errs = append(errs, fmt.Sprintf("kubernetes.hostnetwork.enabled: %q is not true or false", v))
			}
		}
	}
	return o, optionErrors(errs)
}

// optionErrors is errs as one error, sorted (nil for none).
func optionErrors(errs []string) error {
	if len(errs) == 0 {
		return nil
	}
	slices.Sort(errs)
	return fmt.Errorf("flinkConfiguration: %s", strings.Join(errs, "; "))
}

// secrets reads kubernetes.secrets (secret:mount path, …: a Secret volume <secret>-volume
// mounted there) and kubernetes.env.secretKeyRef (env:NAME,secret:s,key:k;…).
func (o *roleOptions) secrets(conf map[string]string) error {
	mounts, err := config.ParseFlinkMap(conf["kubernetes.secrets"])
	if err != nil {
		return fmt.Errorf("kubernetes.secrets: %w", err)
	}
	for _, name := range slices.Sorted(maps.Keys(mounts)) {
		vol := name + "-volume"
		o.volumes = append(o.volumes, corev1.Volume{Name: vol, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: name}}})
		o.mounts = append(o.mounts, corev1.VolumeMount{Name: vol, MountPath: mounts[name]})
	}
	refs, err := config.ParseFlinkMapList(conf["kubernetes.env.secretKeyRef"])
	if err != nil {
		return fmt.Errorf("kubernetes.env.secretKeyRef: %w", err)
	}
	for _, r := range refs {
		if r["env"] == "" || r["secret"] == "" || r["key"] == "" {
			return fmt.Errorf("kubernetes.env.secretKeyRef: %v needs env, secret and key", r)
		}
		o.env = append(o.env, corev1.EnvVar{Name: r["env"], ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: r["secret"]}, Key: r["key"],
		}}})
	}
	return nil
}

// tolerations parses Flink's tolerations: key:k,operator:Equal,value:v,effect:NoSchedule,
// tolerationSeconds:30;… (keys in any case, as Flink reads them).
func tolerations(s string) ([]corev1.Toleration, error) {
	list, err := config.ParseFlinkMapList(s)
	if err != nil {
		return nil, err
	}
	var out []corev1.Toleration
	for _, m := range list {
		var t corev1.Toleration
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
					return nil, fmt.Errorf("tolerationSeconds %q is not a number", v)
				}
				t.TolerationSeconds = &n
			default:
				// Flink logs a warning and ignores the key (KubernetesToleration#fromMap).
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// apply puts the options into a role's pod template, whose main container is main: labels,
// annotations and node selector merged over the template's (the option's values winning),
// tolerations, volumes, mounts and environment appended, the service account set.
func (o roleOptions) apply(tmpl *corev1.PodTemplateSpec, main int) {
	tmpl.Labels = mergeMaps(tmpl.Labels, o.labels)
	if len(o.annotations) > 0 {
		tmpl.Annotations = mergeMaps(tmpl.Annotations, o.annotations)
	}
	s := &tmpl.Spec
	if len(o.nodeSelector) > 0 {
		s.NodeSelector = mergeMaps(s.NodeSelector, o.nodeSelector)
	}
	s.Tolerations = append(s.Tolerations, o.tolerations...)
	s.ImagePullSecrets = append(s.ImagePullSecrets, o.pullSecrets...)
	for _, v := range o.volumes {
		s.Volumes = upsertVolume(s.Volumes, v)
	}
	c := &s.Containers[main]
	c.VolumeMounts = append(c.VolumeMounts, o.mounts...)
	c.Env = append(c.Env, o.env...)
	if o.serviceAccount != "" {
		s.ServiceAccountName = o.serviceAccount
	}
	if o.hostNetwork {
		s.HostNetwork, s.DNSPolicy = true, corev1.DNSClusterFirstWithHostNet
	}
}

// restServiceOptions are the REST Service's type (kubernetes.rest-service.exposed.type:
// ClusterIP, the Apache operator's default, NodePort, LoadBalancer or Headless_ClusterIP) and
// annotations (kubernetes.rest-service.annotations).
func restServiceOptions(conf map[string]string) (corev1.ServiceType, bool, map[string]string, error) {
	ann, err := config.ParseFlinkMap(conf["kubernetes.rest-service.annotations"])
	if err != nil {
		return "", false, nil, fmt.Errorf("flinkConfiguration: kubernetes.rest-service.annotations: %w", err)
	}
	// Flink reads an enum's name in any case (ConfigurationUtils#convertToEnum).
	switch t := conf["kubernetes.rest-service.exposed.type"]; strings.ToLower(strings.TrimSpace(t)) {
	case "", "clusterip":
		return corev1.ServiceTypeClusterIP, false, ann, nil
	case "nodeport":
		return corev1.ServiceTypeNodePort, false, ann, nil
	case "loadbalancer":
		return corev1.ServiceTypeLoadBalancer, false, ann, nil
	case "headless_clusterip":
		return corev1.ServiceTypeClusterIP, true, ann, nil
	default:
		return "", false, nil, fmt.Errorf("flinkConfiguration: kubernetes.rest-service.exposed.type: %q is none of ClusterIP, NodePort, LoadBalancer, Headless_ClusterIP", t)
	}
}
