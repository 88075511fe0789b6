package kuberm

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

func withoutVolume(vs []corev1.Volume, name string) []corev1.Volume {
	return slices.DeleteFunc(slices.Clone(vs), func(v corev1.Volume) bool { return v.Name == name })
}

func withoutMount(ms []corev1.VolumeMount, name string) []corev1.VolumeMount {
	return slices.DeleteFunc(slices.Clone(ms), func(m corev1.VolumeMount) bool { return m.Name == name })
}

func withoutPort(ps []corev1.ContainerPort, name string) []corev1.ContainerPort {
	return slices.DeleteFunc(slices.Clone(ps), func(p corev1.ContainerPort) bool { return p.Name == name })
}

func withoutEnv(es []corev1.EnvVar, name string) []corev1.EnvVar {
	return slices.DeleteFunc(slices.Clone(es), func(e corev1.EnvVar) bool { return e.Name == name })
}
