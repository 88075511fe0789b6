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
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// AnnotationContentHash on a Deployment, ConfigMap or Service the operator renders is a digest
// of its content (a Deployment's spec but its replicas, a ConfigMap's data, a Service's spec).
// The manager's cache drops the content of Deployments and ConfigMaps that carry it
// (StripContent): the pod templates and Flink configurations of a fleet are most of what the
// operator would otherwise hold in memory. A Service is compared by it because the API server
// fills in its spec (cluster IPs, IP families, session affinity, port protocols): compared
// field by field, every deploy would rewrite every Service.
const AnnotationContentHash = "flinkop.io/content-hash"

// stampContentHash sets AnnotationContentHash on a rendered Deployment or ConfigMap.
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
// AnnotationContentHash (a Deployment keeps its replicas, selector and strategy), and every
// object's managedFields: a cache transform. Other objects pass unchanged.
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
		t.Spec.Template = corev1.PodTemplateSpec{}
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

// unchanged reports whether updating existing to want would change nothing. A Service, and an
// existing object whose content the cache dropped, is compared by its content hash (and, for a
// Deployment, its replicas) besides its metadata.
func unchanged(existing, want client.Object) bool {
	hash := existing.GetAnnotations()[AnnotationContentHash]
	_, service := existing.(*corev1.Service)
	if hash != "" && (service || stripped(existing)) && hash == want.GetAnnotations()[AnnotationContentHash] {
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
	case *corev1.Service:
		o.Spec = corev1.ServiceSpec{}
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
