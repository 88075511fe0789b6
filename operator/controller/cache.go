package controller

import (
	"reflect"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/observe"
)

// CacheOptions are the manager's cache options: the watched namespaces (none: all), and for
// every kind the operator reads besides its own resources, a label selector (act.CachedLabels)
// that admits only
// the objects it owns, so its memory does not grow with what else runs in the cluster.
// Deployments, Services and Ingresses are the operator's when labelled
// app.kubernetes.io/managed-by=flinkop; of its pods (labelled through their Deployment's
// template) it reads only JobManagers', also labelled component=jobmanager; ConfigMaps are
// read when labelled type=flink-native-kubernetes: its flink-config ConfigMaps and Flink's
// HA ConfigMaps. An object outside the cache is invisible to the operator: a create that
// collides with one is resolved by an uncached read (see act.Executor.Reader).
//
// The cache keeps of each object only what the operator reads (its memory per deployment is
// what a fleet of 10,000 costs): no managedFields; of a Pod its metadata, in a metadata-only
// informer (act.MetadataOnly: the operator reads a pod whole, past the cache, only while its
// JobManager is not ready, and never writes pods); of a Service its metadata, also in a
// metadata-only informer (the content hash tells whether it changed); of a ConfigMap its metadata, in a
// metadata-only informer too, without the annotations of ConfigMaps it did not render
// (slimConfigMap): the API server never sends the operator a ConfigMap's data, which Flink's
// ServiceAccount (and so a tenant's code) writes (the operator only tells whether HA metadata
// exists and deletes each by name, and compares its own ConfigMaps by their content hash); of
// its own Deployments their metadata, replicas and status but the conditions it does not read
// (observe.ReadsDeploymentCondition); of a FlinkDeployment whose last stable
// spec is its last reconciled spec, one copy of that JSON.
func CacheOptions(namespaces []string) cache.Options {
	strip := cache.TransformStripManagedFields()
	owned := func(obj client.Object, t toolscache.TransformFunc) cache.ByObject {
		return cache.ByObject{Label: labels.SelectorFromSet(act.CachedLabels(obj)), Transform: interned(t)}
	}
	opts := cache.Options{
		// A read of a kind no informer was started for fails rather than starting one: a
		// typed read of a metadata-only kind would otherwise cache every object of it whole.
		ReaderFailOnMissingInformer: true,
		DefaultTransform:            interned(strip),
		ByObject: map[client.Object]cache.ByObject{
			&flinkv1beta1.FlinkDeployment{}: {Transform: interned(slimFlinkDeployment)},
			&appsv1.Deployment{}:            owned(&appsv1.Deployment{}, slimDeployment),
			&corev1.Service{}:               owned(&corev1.Service{}, strip), // metadata only: see act.MetadataOnly
			&corev1.Pod{}:                   owned(&corev1.Pod{}, strip),     // metadata only: see act.MetadataOnly
			&networkingv1.Ingress{}:         owned(&networkingv1.Ingress{}, strip),
			&corev1.ConfigMap{}:             owned(&corev1.ConfigMap{}, slimConfigMap), // metadata only: see act.MetadataOnly
		},
	}
	if len(namespaces) > 0 {
		opts.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range namespaces {
			opts.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	return opts
}

// slimFlinkDeployment drops a FlinkDeployment's managedFields and keeps one copy of its spec
// JSON where its last stable spec is the spec last reconciled (every running deployment that
// was not changed since): the two status fields are its largest strings.
func slimFlinkDeployment(obj any) (any, error) {
	if d, ok := obj.(*flinkv1beta1.FlinkDeployment); ok {
		d.ManagedFields = nil
		if rs := &d.Status.ReconciliationStatus; rs.LastStableSpec == rs.LastReconciledSpec {
			rs.LastStableSpec = rs.LastReconciledSpec
		}
	}
	return obj, nil
}

// slimDeployment drops what act.StripContent drops, and the status conditions the observer
// does not read: the deployment controller's Available and Progressing conditions, with their
// messages, are a sixth of a cached Deployment (430 of 2,600 bytes), and a fleet caches two per
// FlinkDeployment.
func slimDeployment(obj any) (any, error) {
	if d, ok := obj.(*appsv1.Deployment); ok {
		d.Status.Conditions = slices.DeleteFunc(d.Status.Conditions, func(c appsv1.DeploymentCondition) bool {
			return !observe.ReadsDeploymentCondition(c)
		})
		if len(d.Status.Conditions) == 0 {
			d.Status.Conditions = nil
		}
	}
	return act.StripContent(obj)
}

// configMapLabels are the labels of a ConfigMap the operator reads or renders: its own
// ConfigMaps' and those Flink gives its HA ConfigMaps.
var configMapLabels = []string{act.LabelApp, act.LabelType, act.LabelComponent, act.LabelManagedBy, act.LabelConfigMapType}

// maxContentHash bounds the content hash annotation kept (a hex SHA-256 is 64 bytes).
const maxContentHash = 128

// slimConfigMap keeps of a ConfigMap's metadata (the cache holds no more: act.MetadataOnly)
// what the operator reads: no managedFields, of its labels only configMapLabels, of its
// annotations only the content hash the operator stamps on those it renders. Whoever can write
// ConfigMaps with Flink's labels (Flink's ServiceAccount, so a tenant's code) can give each
// 256 KiB of annotations and as many labels as fit in 1 MiB; Flink's HA ConfigMaps carry its
// leader election record in an annotation, which Flink rewrites every few seconds.
func slimConfigMap(obj any) (any, error) {
	m, ok := obj.(client.Object)
	if !ok {
		return obj, nil
	}
	m.SetManagedFields(nil)
	if l := m.GetLabels(); len(l) > 0 {
		kept := map[string]string{}
		for _, k := range configMapLabels {
			if v, ok := l[k]; ok {
				kept[k] = v
			}
		}
		m.SetLabels(kept)
	}
	var annotations map[string]string
	if h, ok := m.GetAnnotations()[act.AnnotationContentHash]; ok && len(h) <= maxContentHash {
		annotations = map[string]string{act.AnnotationContentHash: h}
	}
	m.SetAnnotations(annotations)
	if cm, typed := obj.(*corev1.ConfigMap); typed {
		cm.Data, cm.BinaryData = nil, nil
	}
	return obj, nil
}

// sameKind reports whether obj is of typed's kind: typed, or its metadata.
func sameKind(typed, obj client.Object) bool {
	if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
		return reflect.TypeOf(typed).Elem().Name() == m.GetObjectKind().GroupVersionKind().Kind
	}
	return reflect.TypeOf(typed) == reflect.TypeOf(obj)
}

// cacheTransforms are the transforms of CacheOptions, which SlimForCache applies.
var cacheTransforms = CacheOptions(nil)

// SlimForCache cuts obj down to what the manager's cache keeps of it: the transform
// CacheOptions gives its kind, else the default. The harness serves the operator's reads
// through it, so every scenario runs the operator on what its cache would hold.
func SlimForCache(obj client.Object) {
	transform := cacheTransforms.DefaultTransform
	for kind, by := range cacheTransforms.ByObject {
		if by.Transform != nil && sameKind(kind, obj) {
			transform = by.Transform
		}
	}
	_, _ = transform(obj)
}
