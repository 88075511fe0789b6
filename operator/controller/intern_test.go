package controller

import (
	"encoding/json"
	"testing"
	"unsafe"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestCacheInternsRecurringStrings: two objects decoded apart (as the informer decodes every
// object) share, once through the cache's transform, one copy of each of the operator's
// label keys and values, annotation keys and owner reference strings; a tenant's own label
// is left as it came.
func TestCacheInternsRecurringStrings(t *testing.T) {
	owner := &flinkv1beta1.FlinkDeployment{ObjectMeta: metav1.ObjectMeta{Name: "a", UID: "u"}}
	meta := metav1.ObjectMeta{
		Name: "a", Namespace: "ns",
		Labels:          map[string]string{act.LabelApp: "a", act.LabelManagedBy: act.ManagedBy, act.LabelComponent: act.ComponentJobManager, "team": "data"},
		Annotations:     map[string]string{act.AnnotationContentHash: "h", "deployment.kubernetes.io/revision": "1"},
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(owner, flinkv1beta1.GroupVersion.WithKind("FlinkDeployment"))},
	}
	decoded := func(obj client.Object) client.Object {
		data, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		out := obj.DeepCopyObject().(client.Object)
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatal(err)
		}
		SlimForCache(out)
		return out
	}
	for name, obj := range map[string]client.Object{
		"Deployment":   &appsv1.Deployment{ObjectMeta: meta},
		"Service":      &corev1.Service{ObjectMeta: meta},
		"ConfigMap":    &corev1.ConfigMap{ObjectMeta: meta},
		"pod metadata": &metav1.PartialObjectMetadata{TypeMeta: act.PodMetadata().TypeMeta, ObjectMeta: meta},
	} {
		t.Run(name, func(t *testing.T) {
			a, b := decoded(obj), decoded(obj)
			same := func(what, x, y string) {
				t.Helper()
				if unsafe.StringData(x) != unsafe.StringData(y) {
					t.Errorf("%s %q: two copies in the cache", what, x)
				}
			}
			for k, v := range a.GetLabels() {
				if _, ok := interned[k]; !ok {
					continue
				}
				bk := keyOf(b.GetLabels(), k)
				same("label key", k, bk)
				if _, ok := interned[v]; ok {
					same("label value", v, b.GetLabels()[k])
				}
			}
			for k := range a.GetAnnotations() {
				same("annotation key", k, keyOf(b.GetAnnotations(), k))
			}
			ra, rb := a.GetOwnerReferences()[0], b.GetOwnerReferences()[0]
			same("owner apiVersion", ra.APIVersion, rb.APIVersion)
			same("owner kind", ra.Kind, rb.Kind)
			if x, y := keyOf(a.GetLabels(), "team"), keyOf(b.GetLabels(), "team"); unsafe.StringData(x) == unsafe.StringData(y) {
				t.Errorf("a tenant's label key was interned: the table must stay fixed")
			}
		})
	}
}

// keyOf is m's own copy of key k.
func keyOf(m map[string]string, k string) string {
	for key := range m {
		if key == k {
			return key
		}
	}
	return ""
}
