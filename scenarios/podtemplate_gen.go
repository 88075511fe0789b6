package scenarios

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// deploymentModes are the modes a spec may have: unset (native, Apache's default), native and
// standalone.
var deploymentModes = []flinkv1beta1.KubernetesDeploymentMode{"", flinkv1beta1.DeploymentModeNative, flinkv1beta1.DeploymentModeStandalone}

// podTemplateFamily draws a pod template setting one family of PodSpec fields (scheduling,
// placement, environment, volumes, containers, security, networking, metadata): what a user
// puts in spec.podTemplate or a role's, for the machines to merge and deploy in either mode.
func podTemplateFamily(t *rapid.T, label string) *flinkv1beta1.PodTemplate {
	p := &flinkv1beta1.PodTemplate{}
	s := &p.Spec
	main := corev1.Container{Name: "flink-main-container"}
	switch rapid.IntRange(0, 9).Draw(t, label) {
	case 0:
		s.NodeSelector = map[string]string{"disk": rapid.SampledFrom([]string{"ssd", "hdd"}).Draw(t, label+"-disk")}
	case 1:
		s.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "flink", Effect: corev1.TaintEffectNoSchedule}}
	case 2:
		main.Env = []corev1.EnvVar{{Name: "TEAM", Value: rapid.StringMatching(`[a-z]{2}`).Draw(t, label+"-env")}}
	case 3:
		s.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		main.VolumeMounts = []corev1.VolumeMount{{Name: "scratch", MountPath: "/scratch"}}
	case 4:
		s.Containers = []corev1.Container{{Name: "sidecar", Image: "busybox:1.36"}}
	case 5:
		s.InitContainers = []corev1.Container{{Name: "fetch", Image: "busybox:1.36"}}
	case 6:
		s.SecurityContext = &corev1.PodSecurityContext{RunAsUser: new(int64(9999)), FSGroup: new(int64(9999))}
	case 7:
		s.SchedulerName, s.DNSPolicy = "custom-scheduler", corev1.DNSClusterFirst
	case 8:
		s.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.ScheduleAnyway}}
	default:
		p.Metadata = metav1.ObjectMeta{Labels: map[string]string{"team": "data"}, Annotations: map[string]string{"owner": "data"}}
	}
	if main.Env != nil || main.VolumeMounts != nil {
		s.Containers = append([]corev1.Container{main}, s.Containers...)
	}
	return p
}
