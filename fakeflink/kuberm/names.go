package kuberm

import "fmt"

// Flink's names for the objects of a native cluster (org.apache.flink.kubernetes.utils.Constants
// and KubernetesConfigOptions), spelled here: fakeflink imports nothing of the operator.
const (
	LabelApp                = "app"
	LabelType               = "type"
	TypeNative              = "flink-native-kubernetes"
	LabelComponent          = "component"
	ComponentTaskManager    = "taskmanager"
	MainContainer           = "flink-main-container"
	ConfigVolume            = "flink-config-volume"
	ConfDir                 = "/opt/flink/conf"
	DefaultEntryPath        = "/docker-entrypoint.sh"
	TaskManagerScript       = "kubernetes-taskmanager.sh"
	PodTemplateDir          = "/opt/flink/pod-template"
	TaskManagerTemplateFile = "taskmanager-pod-template.yaml"
	DefaultTaskManagerRPC   = 6122
	DefaultTaskManagerIdle  = "30 s"
	KeyTaskManagerTemplate  = "kubernetes.pod-template-file.taskmanager"
)

// PodName is the name Flink gives a TaskManager pod: <cluster-id>-taskmanager-<attempt>-<n>,
// the JobManager's attempt (1 on its first start) and a counter of the pods it asked for.
func PodName(clusterID string, attempt, n int) string {
	return fmt.Sprintf("%s-taskmanager-%d-%d", clusterID, attempt, n)
}

// ConfigMapName is the ConfigMap Flink mounts as the configuration directory of a cluster's pods.
func ConfigMapName(clusterID string) string { return "flink-config-" + clusterID }

// Selector are the labels of a cluster's TaskManager pods (KubernetesUtils#getTaskManagerSelectors).
func Selector(clusterID string) map[string]string {
	return map[string]string{LabelApp: clusterID, LabelType: TypeNative, LabelComponent: ComponentTaskManager}
}
