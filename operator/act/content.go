package act

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// AnnotationContentHash on a Deployment, ConfigMap or Service the operator renders is a digest
// of its content (a Deployment's spec but its replicas, a ConfigMap's data, a Service's spec as
// rendered). The manager's cache drops the content of objects that carry it (StripContent;
// Services it holds as metadata): the pod templates, Flink configurations and Service specs of
// a fleet are most of what the operator would otherwise hold in memory.
const AnnotationContentHash = "flinkop.io/content-hash"

// stampContentHash sets AnnotationContentHash on a rendered Deployment, ConfigMap or Service.
func stampContentHash(obj client.Object) {
	var content any
	switch o := obj.(type) {
	case *appsv1.Deployment:
		spec := o.Spec.DeepCopy()
		spec.Replicas = nil // scaling in place changes replicas alone
		content = spec
	case *corev1.ConfigMap:
		content = []any{o.Data, o.BinaryData}
	case *corev1.Service:
		content = o.Spec
	default:
		return
	}
	data, _ := json.Marshal(content)
	sum := sha256.Sum256(data)
	ann := obj.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[AnnotationContentHash] = hex.EncodeToString(sum[:16])
	obj.SetAnnotations(ann)
}

// StripContent drops the content of a Deployment or ConfigMap that carries
// AnnotationContentHash (a Deployment keeps of its spec only its replicas, which scaling
// changes in place), and every object's managedFields: a cache transform. Other objects pass
// unchanged.
func StripContent(obj any) (any, error) {
	o, ok := obj.(client.Object)
	if !ok {
		return obj, nil
	}
	o.SetManagedFields(nil)
	if _, hashed := o.GetAnnotations()[AnnotationContentHash]; !hashed {
		return obj, nil
	}
	switch t := o.(type) {
	case *appsv1.Deployment:
		t.Spec = appsv1.DeploymentSpec{Replicas: t.Spec.Replicas}
	case *corev1.ConfigMap:
		t.Data, t.BinaryData = nil, nil
	}
	return obj, nil
}

// stripped reports whether the cache dropped obj's content: a Deployment always has a
// container, a rendered ConfigMap always has data.
func stripped(obj client.Object) bool {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		return len(o.Spec.Template.Spec.Containers) == 0
	case *corev1.ConfigMap:
		return o.Data == nil && o.BinaryData == nil
	}
	return false
}

// unchanged reports whether updating existing to want would change nothing. An existing
// object whose content the cache dropped is compared by its content hash (and, for a
// Deployment, its replicas) besides its metadata; a Service by the fields the operator renders
// (sameRenderedService) besides its metadata.
func unchanged(existing, want client.Object) bool {
	if e, ok := existing.(*corev1.Service); ok {
		w := want.(*corev1.Service)
		return sameRenderedService(e.Spec, w.Spec) && equality.Semantic.DeepEqual(e.ObjectMeta, w.ObjectMeta)
	}
	hash := existing.GetAnnotations()[AnnotationContentHash]
	if hash != "" && stripped(existing) && hash == want.GetAnnotations()[AnnotationContentHash] {
		existing, want = withoutContent(existing), withoutContent(want)
	}
	return equality.Semantic.DeepEqual(existing, want)
}

// withoutContent is a copy of obj without what AnnotationContentHash stands for.
func withoutContent(obj client.Object) client.Object {
	c := obj.DeepCopyObject().(client.Object)
	switch o := c.(type) {
	case *appsv1.Deployment:
		o.Spec = appsv1.DeploymentSpec{Replicas: o.Spec.Replicas}
	case *corev1.ConfigMap:
		o.Data, o.BinaryData = nil, nil
	}
	return c
}

// mergeAnnotations is what an applied object's annotations become: the rendered ones, and
// those of existing that the deployment controller owns (deployment.kubernetes.io/revision).
// Removing them would make every deploy an update that the deployment controller undoes;
// every other annotation is the rendered set's to decide (an Ingress's come from the spec).
func mergeAnnotations(existing, rendered map[string]string) map[string]string {
	out := maps.Clone(rendered)
	for k, v := range existing {
		if strings.HasPrefix(k, deploymentControllerPrefix) {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// deploymentControllerPrefix is the prefix of the deployment controller's annotations.
const deploymentControllerPrefix = "deployment.kubernetes.io/"

// sameRenderedService reports whether an existing Service's spec holds every field the
// operator renders into want: selector, headless or not, type when set, and each port's name,
// port, and target port, protocol and node port when set. The API server fills in the rest
// (cluster IPs, IP families, session affinity, port protocols), so comparing whole specs would
// rewrite every Service at every deploy; comparing these still undoes a hand edit of them.
func sameRenderedService(existing, want corev1.ServiceSpec) bool {
	if !maps.Equal(existing.Selector, want.Selector) || len(existing.Ports) != len(want.Ports) ||
		(existing.ClusterIP == corev1.ClusterIPNone) != (want.ClusterIP == corev1.ClusterIPNone) ||
		(want.Type != "" && existing.Type != want.Type) {
		return false
	}
	for i, w := range want.Ports {
		e := existing.Ports[i]
		if e.Name != w.Name || e.Port != w.Port ||
			(w.TargetPort != intstr.IntOrString{} && e.TargetPort != w.TargetPort) ||
			(w.Protocol != "" && e.Protocol != w.Protocol) || (w.NodePort != 0 && e.NodePort != w.NodePort) {
			return false
		}
	}
	return true
}
