package act

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// mergeTemplates merges the common pod template with the role's: labels and annotations are
// unioned (role wins), containers, init containers and volumes are merged by name (the role's
// fields win where set), other lists are appended and other fields are taken from the role
// when it sets them.
func mergeTemplates(base, role *flinkv1beta1.PodTemplate) corev1.PodTemplateSpec {
	var out corev1.PodTemplateSpec
	if base != nil {
		out.Labels = maps.Clone(base.Metadata.Labels)
		out.Annotations = maps.Clone(base.Metadata.Annotations)
		out.Spec = *base.Spec.DeepCopy()
	}
	if role == nil {
		return out
	}
	out.Labels = mergeMaps(out.Labels, role.Metadata.Labels)
	out.Annotations = mergeMaps(out.Annotations, role.Metadata.Annotations)
	r := role.Spec.DeepCopy()
	containers, inits, volumes := out.Spec.Containers, out.Spec.InitContainers, out.Spec.Volumes
	tolerations, pullSecrets := out.Spec.Tolerations, out.Spec.ImagePullSecrets
	base2 := out.Spec
	out.Spec = *r
	fillPodSpec(&out.Spec, &base2)
	out.Spec.Containers = mergeContainers(containers, r.Containers)
	out.Spec.InitContainers = mergeContainers(inits, r.InitContainers)
	out.Spec.Volumes = mergeVolumes(volumes, r.Volumes)
	out.Spec.Tolerations = append(slices.Clone(tolerations), r.Tolerations...)
	out.Spec.ImagePullSecrets = append(slices.Clone(pullSecrets), r.ImagePullSecrets...)
	return out
}

// fillPodSpec takes from base the scalar and struct fields dst leaves unset.
func fillPodSpec(dst, base *corev1.PodSpec) {
	if dst.ServiceAccountName == "" {
		dst.ServiceAccountName = base.ServiceAccountName
	}
	if dst.NodeSelector == nil {
		dst.NodeSelector = base.NodeSelector
	}
	if dst.Affinity == nil {
		dst.Affinity = base.Affinity
	}
	if dst.SecurityContext == nil {
		dst.SecurityContext = base.SecurityContext
	}
	if dst.PriorityClassName == "" {
		dst.PriorityClassName = base.PriorityClassName
	}
	if dst.TerminationGracePeriodSeconds == nil {
		dst.TerminationGracePeriodSeconds = base.TerminationGracePeriodSeconds
	}
	if dst.HostAliases == nil {
		dst.HostAliases = base.HostAliases
	}
}

func mergeContainers(base, role []corev1.Container) []corev1.Container {
	out := append([]corev1.Container(nil), base...)
	for _, c := range role {
		i := containerIndex(out, c.Name)
		if i < 0 {
			out = append(out, c)
			continue
		}
		out[i] = mergeContainer(out[i], c)
	}
	return out
}

func mergeContainer(base, role corev1.Container) corev1.Container {
	out := role
	if out.Image == "" {
		out.Image = base.Image
	}
	if len(out.Command) == 0 {
		out.Command = base.Command
	}
	if len(out.Args) == 0 {
		out.Args = base.Args
	}
	out.Env = append(append([]corev1.EnvVar(nil), base.Env...), role.Env...)
	out.EnvFrom = append(append([]corev1.EnvFromSource(nil), base.EnvFrom...), role.EnvFrom...)
	out.VolumeMounts = append(append([]corev1.VolumeMount(nil), base.VolumeMounts...), role.VolumeMounts...)
	out.Ports = append(append([]corev1.ContainerPort(nil), base.Ports...), role.Ports...)
	if out.Resources.Requests == nil && out.Resources.Limits == nil {
		out.Resources = base.Resources
	}
	return out
}

func mergeVolumes(base, role []corev1.Volume) []corev1.Volume {
	out := append([]corev1.Volume(nil), base...)
	for _, v := range role {
		out = upsertVolume(out, v)
	}
	return out
}

func upsertVolume(vs []corev1.Volume, v corev1.Volume) []corev1.Volume {
	for i := range vs {
		if vs[i].Name == v.Name {
			vs[i] = v
			return vs
		}
	}
	return append(vs, v)
}

func containerIndex(cs []corev1.Container, name string) int {
	for i := range cs {
		if cs[i].Name == name {
			return i
		}
	}
	return -1
}

// mainContainerIndex returns the index of flink-main-container, adding it first if missing.
func mainContainerIndex(spec *corev1.PodSpec) int {
	if i := containerIndex(spec.Containers, MainContainer); i >= 0 {
		return i
	}
	spec.Containers = append([]corev1.Container{{Name: MainContainer}}, spec.Containers...)
	return 0
}

func hasPort(ports []corev1.ContainerPort, port int32) bool {
	for _, p := range ports {
		if p.ContainerPort == port {
			return true
		}
	}
	return false
}

func mergeMaps(a, b map[string]string) map[string]string {
	out := maps.Clone(a)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, b)
	return out
}
