package act

import (
	"context"
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// applyService creates svc or updates the existing Service to it. The cache holds Services as
// metadata (MetadataOnly): the existing one's labels, annotations, owner and content hash
// (AnnotationContentHash) tell whether anything changed, so an unchanged Service costs no read
// past the cache. Only a changed one is read whole, past the cache, and updated (keeping the
// cluster IP the API server gave it). As with Deployments, a hand edit of a Service's spec that
// keeps its annotations is not seen.
func (e *Executor) applyService(ctx context.Context, svc *corev1.Service) error {
	stampContentHash(svc)
	key := client.ObjectKeyFromObject(svc)
	meta := ServiceMetadata(svc.Namespace, svc.Name)
	err := e.Client.Get(ctx, key, meta)
	if apierrors.IsNotFound(err) {
		err = e.create(ctx, svc)
		if !apierrors.IsAlreadyExists(err) {
			return wrap("create "+describe(svc), err)
		}
		// Not in the cache but on the server: unlabelled, or created a moment ago.
		err = e.reader().Get(ctx, key, meta)
	}
	if err != nil {
		return wrap("get "+describe(svc), err)
	}
	if err := checkControlled(meta, controllerUID(svc)); err != nil {
		return err
	}
	if sameServiceMetadata(meta, svc) {
		return nil
	}
	existing := &corev1.Service{}
	if err := e.reader().Get(ctx, key, existing); err != nil {
		return wrap("get "+describe(svc)+" past the cache", err)
	}
	if err := checkControlled(existing, controllerUID(svc)); err != nil {
		return err
	}
	want := existing.DeepCopy()
	want.Labels = svc.Labels
	want.Annotations = mergeAnnotations(existing.Annotations, svc.Annotations)
	want.OwnerReferences = svc.OwnerReferences
	copyContent(want, svc)
	if unchanged(existing, want) {
		return nil
	}
	return wrap("update "+describe(svc), e.Client.Update(ctx, want))
}

// sameServiceMetadata reports whether the Service whose metadata the cache holds is svc as
// rendered: its labels, annotations (with the content hash) and owner.
func sameServiceMetadata(meta *metav1.PartialObjectMetadata, svc *corev1.Service) bool {
	return maps.Equal(meta.Labels, svc.Labels) &&
		maps.Equal(meta.Annotations, mergeAnnotations(meta.Annotations, svc.Annotations)) &&
		equality.Semantic.DeepEqual(meta.OwnerReferences, svc.OwnerReferences)
}

// asCached is an empty object to read obj's namesake into through the cache: a Service's
// metadata (MetadataOnly), else an object of obj's type.
func asCached(obj client.Object) client.Object {
	if svc, ok := obj.(*corev1.Service); ok {
		return ServiceMetadata(svc.Namespace, svc.Name)
	}
	return obj.DeepCopyObject().(client.Object)
}
