package act

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// Native mode: the operator renders what Flink's KubernetesClusterDescriptor creates for a
// native cluster (the JobManager Deployment, its Services and configuration) and no
// TaskManagers: the JobManager's resource manager creates those pods itself, from the
// TaskManager pod template file and the kubernetes.* options of the configuration.
const (
	// PodTemplateDir is where Flink mounts the pod template files (PodTemplateMountDecorator).
	PodTemplateDir = "/opt/flink/pod-template"
	// TaskManagerTemplateFile is the TaskManager pod template file's name, a key of the
	// flink-config ConfigMap.
	TaskManagerTemplateFile = "taskmanager-pod-template.yaml"
	// EntryPath is the image's entrypoint (kubernetes.entry.path's default).
	EntryPath = "/docker-entrypoint.sh"
	// PodTemplateVolume is the volume holding the TaskManager pod template file.
	PodTemplateVolume = "pod-template-volume"
)

// nativeConfig sets what Flink's native entrypoints read: the deployment target, the image
// its resource manager gives TaskManagers, the pod template file and service account.
func nativeConfig(c Cluster, conf map[string]string) {
	spec := c.Spec
	conf["execution.target"] = "kubernetes-session"
	if spec.Job != nil {
		conf["execution.target"] = "kubernetes-application"
		delete(conf, "pipeline.classpaths") // the native entrypoint reads pipeline.jars
	}
	conf["kubernetes.container.image.ref"] = spec.Image
	if spec.ImagePullPolicy != "" {
		conf["kubernetes.container.image.pull-policy"] = spec.ImagePullPolicy
	}
	if spec.ServiceAccount != "" {
		conf["kubernetes.service-account"] = spec.ServiceAccount
	}
	conf["kubernetes.pod-template-file.taskmanager"] = PodTemplateDir + "/" + TaskManagerTemplateFile
	if _, ok := conf["kubernetes.entry.path"]; !ok {
		conf["kubernetes.entry.path"] = EntryPath
	}
}

// withTaskManagerResources puts the TaskManager's resources other than CPU and memory
// (ephemeral storage, extended resources) into the main container of its pod template, as
// Apache's FlinkConfigBuilder#applyResourceToPodTemplate does: Flink's decorators set CPU and
// memory from the configuration and keep the template's others.
func withTaskManagerResources(tmpl corev1.PodTemplateSpec, spec flinkv1beta1.FlinkDeploymentSpec) corev1.PodTemplateSpec {
	tm := spec.TaskManager
	if tm == nil {
		return tmpl
	}
	r := resolveResources(tm.Resource, tm.Resources).Container
	others := func(l corev1.ResourceList) corev1.ResourceList {
		out := corev1.ResourceList{}
		for k, v := range l {
			if k != corev1.ResourceCPU && k != corev1.ResourceMemory {
				out[k] = v
			}
		}
		return out
	}
	req, lim := others(r.Requests), others(r.Limits)
	if len(req) == 0 && len(lim) == 0 {
		return tmpl
	}
	tmpl = *tmpl.DeepCopy()
	c := &tmpl.Spec.Containers[mainContainerIndex(&tmpl.Spec)]
	for _, l := range []struct {
		dst *corev1.ResourceList
		src corev1.ResourceList
	}{{&c.Resources.Requests, req}, {&c.Resources.Limits, lim}} {
		if len(l.src) > 0 && *l.dst == nil {
			*l.dst = corev1.ResourceList{}
		}
		maps.Copy(*l.dst, l.src)
	}
	return tmpl
}

// taskManagerTemplateFile is the TaskManager pod template as the file Flink loads: a Pod.
func taskManagerTemplateFile(tmpl corev1.PodTemplateSpec) (string, error) {
	pod := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": tmpl.ObjectMeta, "spec": tmpl.Spec}
	out, err := yaml.Marshal(pod)
	if err != nil {
		return "", fmt.Errorf("taskManager pod template: %w", err)
	}
	return string(out), nil
}

// nativeJobManager starts the JobManager as Flink's CmdJobManagerDecorator does (the entry
// path running kubernetes-jobmanager.sh with the deployment target) and mounts the
// TaskManager pod template file where kubernetes.pod-template-file.taskmanager points.
func nativeJobManager(dep *appsv1.Deployment, c Cluster, conf map[string]string) {
	spec := &dep.Spec.Template.Spec
	i := mainContainerIndex(spec)
	main := &spec.Containers[i]
	script := "kubernetes-jobmanager.sh " + conf["execution.target"]
	if extra := strings.TrimSpace(conf["kubernetes.jobmanager.entrypoint.args"]); extra != "" {
		script += " " + extra
	}
	main.Command = []string{conf["kubernetes.entry.path"]}
	main.Args = []string{"bash", "-c", script}
	spec.Volumes = upsertVolume(spec.Volumes, corev1.Volume{
		Name: PodTemplateVolume,
		VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: ConfigMapName(c.Resource.Name)},
			Items:                []corev1.KeyToPath{{Key: TaskManagerTemplateFile, Path: TaskManagerTemplateFile}},
		}},
	})
	main.VolumeMounts = slices.DeleteFunc(main.VolumeMounts, func(m corev1.VolumeMount) bool {
		return m.Name == PodTemplateVolume || m.MountPath == PodTemplateDir // the operator's mount wins
	})
	main.VolumeMounts = append(main.VolumeMounts, corev1.VolumeMount{Name: PodTemplateVolume, MountPath: PodTemplateDir})
}
