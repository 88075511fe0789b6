package act

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// sameMetadata reports whether the object whose metadata the cache holds is obj as rendered:
// its labels, annotations (with the content hash) and owner. Then the content it stands for
// is unchanged too. As with Deployments, a hand edit of a Service's spec that keeps its
// annotations is not seen.
func sameMetadata(meta *metav1.PartialObjectMetadata, obj client.Object) bool {
	return maps.Equal(meta.Labels, obj.GetLabels()) &&
		maps.Equal(meta.Annotations, mergeAnnotations(meta.Annotations, obj.GetAnnotations())) &&
		equality.Semantic.DeepEqual(meta.OwnerReferences, obj.GetOwnerReferences())
}

// asCached is an empty object to read obj's namesake into through the cache: a Service's or
// ConfigMap's metadata (MetadataOnly), else an object of obj's type.
func asCached(obj client.Object) client.Object {
	switch o := obj.(type) {
	case *corev1.Service:
		return ServiceMetadata(o.Namespace, o.Name)
	case *corev1.ConfigMap:
		return ConfigMapMetadata(o.Namespace, o.Name)
	}
	return obj.DeepCopyObject().(client.Object)
}
