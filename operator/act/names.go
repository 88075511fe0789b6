package act

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Labels, annotations and names the operator puts on the objects it renders.
const (
	// LabelApp is the resource name on every rendered object.
	LabelApp = "app"
	// LabelComponent is jobmanager or taskmanager on pods and Deployments.
	LabelComponent = "component"
	// LabelManagedBy marks objects Flinkop owns.
	LabelManagedBy = "app.kubernetes.io/managed-by"
	// ManagedBy is the value of LabelManagedBy.
	ManagedBy = "flinkop"
	// LabelType and TypeNative are Flink's own label on the Kubernetes objects of a cluster
	// (its HA ConfigMaps carry it). The operator puts it on its flink-config ConfigMap too, so
	// one label selects every ConfigMap the operator reads, and its cache holds no others.
	LabelType  = "type"
	TypeNative = "flink-native-kubernetes"
	// LabelConfigMapType and ConfigMapTypeHA are Flink's label on its HA ConfigMaps.
	LabelConfigMapType = "configmap-type"
	ConfigMapTypeHA    = "high-availability"
	// AnnotationGeneration on the JobManager Deployment is the FlinkDeployment generation it
	// was rendered for: after a crash the operator can tell whether a deploy already happened.
	AnnotationGeneration = "flinkop.io/generation"
	// AnnotationRun on the JobManager Deployment names the job run of that generation (a
	// restart or rollback); absent for a generation's first run.
	AnnotationRun = "flinkop.io/run"
	// AnnotationRESTSSL on the JobManager Deployment says how its REST endpoint serves when it
	// enables SSL (flink.RESTSSL.String); absent for plain HTTP. The operator calls the
	// cluster that runs as it serves, which during an upgrade is not the spec it records.
	AnnotationRESTSSL = "flinkop.io/rest-ssl"
	// ComponentJobManager and ComponentTaskManager are the LabelComponent values.
	ComponentJobManager  = "jobmanager"
	ComponentTaskManager = "taskmanager"
	// MainContainer is the Flink container in every pod (the name the Apache operator uses).
	MainContainer = "flink-main-container"
	// RESTPort is the JobManager REST port.
	RESTPort = 8081
	// ConfDir is where the flink-config ConfigMap is mounted.
	ConfDir = "/opt/flink/conf"
)

// JobManagerName is the JobManager Deployment's name.
func JobManagerName(name string) string { return name }

// TaskManagerName is the TaskManager Deployment's name.
func TaskManagerName(name string) string { return name + "-taskmanager" }

// RESTServiceName is the JobManager REST Service's name.
func RESTServiceName(name string) string { return name + "-rest" }

// InternalServiceName is the JobManager RPC/blob Service's name (jobmanager.rpc.address).
func InternalServiceName(name string) string { return name }

// ConfigMapName is the flink-config ConfigMap's name.
func ConfigMapName(name string) string { return "flink-config-" + name }

// AutoscalerConfigMapName is the autoscaler's state ConfigMap, as the Apache operator names it.
func AutoscalerConfigMapName(name string) string { return "autoscaler-" + name }

// HAClusterConfigMapName is the ConfigMap Flink's Kubernetes HA services keep for a cluster
// id (its leader and job graphs): the one a new JobManager joins.
func HAClusterConfigMapName(clusterID string) string { return clusterID + "-cluster-config-map" }

// HAJobConfigMapName is the ConfigMap Flink's Kubernetes HA services keep for a job of a
// cluster id (its checkpoints and checkpoint counter).
func HAJobConfigMapName(clusterID, jobID string) string {
	return clusterID + "-" + jobID + "-config-map"
}

// Selector are the labels selecting a resource's pods of one component.
func Selector(name, component string) map[string]string {
	return map[string]string{LabelApp: name, LabelComponent: component}
}

// CachedLabels are the labels an object of obj's kind needs for the manager's cache to hold
// it (nil: every object of the kind): the operator's own labels on its Deployments, Services
// and Ingresses, and on its pods only JobManagers'; Flink's type label on ConfigMaps (the
// flink-config ConfigMaps, which the operator labels so, and Flink's HA ConfigMaps). A
// metadata-only object (*metav1.PartialObjectMetadata) counts as its kind.
func CachedLabels(obj client.Object) map[string]string {
	kind := ""
	switch obj.(type) {
	case *corev1.Pod:
		kind = "Pod"
	case *corev1.ConfigMap:
		kind = "ConfigMap"
	case *appsv1.Deployment, *corev1.Service, *networkingv1.Ingress:
		kind = "Owned"
	case *metav1.PartialObjectMetadata:
		kind = obj.GetObjectKind().GroupVersionKind().Kind
	}
	switch kind {
	case "Pod":
		return map[string]string{LabelManagedBy: ManagedBy, LabelComponent: ComponentJobManager}
	case "ConfigMap":
		return map[string]string{LabelType: TypeNative}
	case "Owned", "Deployment", "Service", "Ingress":
		return map[string]string{LabelManagedBy: ManagedBy}
	}
	return nil
}

// Cached reports whether the manager's cache holds obj: whether its labels carry
// CachedLabels of its kind.
func Cached(obj client.Object) bool {
	return labels.SelectorFromSet(CachedLabels(obj)).Matches(labels.Set(obj.GetLabels()))
}

// MetadataOnly reports whether the manager's cache holds only the metadata of objects of
// obj's kind (a metadata-only informer), so that a typed read of one through the cache is
// refused: Pods, Services and ConfigMaps. ConfigMaps are a tenant's to write (Flink's
// ServiceAccount writes its HA ConfigMaps, and so can the tenant's code under it, with Flink's
// labels): the API server sends the cache their metadata only, never their data, so 1,000
// ConfigMaps of 1 MB with Flink's labels cost the operator their metadata. It compares its
// own flink-config and autoscaler ConfigMaps by their content hash, reads the autoscaler's
// state past the cache, and only tells whether HA ConfigMaps exist. The operator reads a pod's status only while its JobManager is
// not ready, and then past the cache, by name; it reads a Service whole only to update it,
// when its content hash (AnnotationContentHash) shows the rendered spec changed. A typed Pod
// struct is 1.2 KB before its content, a Service with its spec about 1.3 KB, and a fleet has a
// JobManager pod and two Services per deployment.
func MetadataOnly(obj runtime.Object) bool {
	switch obj.(type) {
	case *corev1.Pod, *corev1.PodList, *corev1.Service, *corev1.ServiceList, *corev1.ConfigMap, *corev1.ConfigMapList:
		return true
	}
	return false
}

// ServiceMetadata is a Service's metadata, as the manager's cache holds Services, named
// namespace/name.
func ServiceMetadata(namespace, name string) *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Service"))
	m.Namespace, m.Name = namespace, name
	return m
}

// ConfigMapMetadata is a ConfigMap's metadata, as the manager's cache holds ConfigMaps, named
// namespace/name.
func ConfigMapMetadata(namespace, name string) *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	m.Namespace, m.Name = namespace, name
	return m
}

// ConfigMapMetadataList is an empty list of ConfigMap metadata, as the manager's cache holds
// ConfigMaps.
func ConfigMapMetadataList() *metav1.PartialObjectMetadataList {
	l := &metav1.PartialObjectMetadataList{}
	l.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMapList"))
	return l
}

// PodMetadataList is an empty list of pod metadata, as the manager's cache holds pods.
func PodMetadataList() *metav1.PartialObjectMetadataList {
	l := &metav1.PartialObjectMetadataList{}
	l.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("PodList"))
	return l
}

// PodMetadata is an empty pod metadata object, as the manager's cache holds pods.
func PodMetadata() *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Pod"))
	return m
}

// JobManagerPods selects the JobManager pods of deployment name that the operator rendered:
// the only pods the manager's cache holds.
func JobManagerPods(name string) client.MatchingLabels {
	return client.MatchingLabels{LabelApp: name, LabelComponent: ComponentJobManager, LabelManagedBy: ManagedBy}
}
