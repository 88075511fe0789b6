package controller

import (
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// decodedMeta is metadata whose every string has its own copy, as two objects decoded from
// the API server's answers have.
func decodedMeta() metav1.ObjectMeta {
	c := strings.Clone
	return metav1.ObjectMeta{
		Name: c("job-1-rest"), Namespace: c("fleet"),
		Labels:      map[string]string{c(act.LabelApp): c("job-1"), c(act.LabelManagedBy): c(act.ManagedBy)},
		Annotations: map[string]string{c("flinkop.io/x"): c("own value")},
		OwnerReferences: []metav1.OwnerReference{{
			APIVersion: c("flink.apache.org/v1beta1"), Kind: c("FlinkDeployment"), Name: c("job-1"), UID: types.UID(c("u-1")),
		}},
		Finalizers: []string{c("flinkop.io/finalizer")},
	}
}

func same(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }

// TestCacheInternsMetadata: whatever the kind, two cached objects share one copy of each
// recurring metadata string, and the metadata reads as before (but for what a kind's transform
// drops: ConfigMaps keep few labels and annotations, see TestCacheTransforms).
func TestCacheInternsMetadata(t *testing.T) {
	for name, newObj := range map[string]func(metav1.ObjectMeta) client.Object{
		"FlinkDeployment": func(m metav1.ObjectMeta) client.Object { return &flinkv1beta1.FlinkDeployment{ObjectMeta: m} },
		"FlinkSessionJob (default)": func(m metav1.ObjectMeta) client.Object {
			return &flinkv1beta1.FlinkSessionJob{ObjectMeta: m}
		},
		"Deployment": func(m metav1.ObjectMeta) client.Object { return &appsv1.Deployment{ObjectMeta: m} },
		"Ingress":    func(m metav1.ObjectMeta) client.Object { return &networkingv1.Ingress{ObjectMeta: m} },
		"pod metadata": func(m metav1.ObjectMeta) client.Object {
			return &metav1.PartialObjectMetadata{TypeMeta: act.PodMetadata().TypeMeta, ObjectMeta: m}
		},
	} {
		t.Run(name, func(t *testing.T) {
			a, b := newObj(decodedMeta()), newObj(decodedMeta())
			SlimForCache(a)
			runtime.GC() // the copies are shared across collections, not only between them
			SlimForCache(b)
			if diff := cmp.Diff(decodedMeta(), *a.(metav1.ObjectMetaAccessor).GetObjectMeta().(*metav1.ObjectMeta)); diff != "" {
				t.Errorf("interning changed the metadata (-want +got):\n%s", diff)
			}
			key := func(m map[string]string, want string) string {
				for k := range m {
					if k == want {
						return k
					}
				}
				return ""
			}
			ra, rb := a.GetOwnerReferences()[0], b.GetOwnerReferences()[0]
			for what, shared := range map[string]bool{
				"namespace":             same(a.GetNamespace(), b.GetNamespace()),
				"label key":             same(key(a.GetLabels(), act.LabelApp), key(b.GetLabels(), act.LabelApp)),
				"label value":           same(a.GetLabels()[act.LabelApp], b.GetLabels()[act.LabelApp]),
				"annotation key":        same(key(a.GetAnnotations(), "flinkop.io/x"), key(b.GetAnnotations(), "flinkop.io/x")),
				"owner apiVersion":      same(ra.APIVersion, rb.APIVersion),
				"owner kind":            same(ra.Kind, rb.Kind),
				"owner name":            same(ra.Name, rb.Name),
				"owner uid":             same(string(ra.UID), string(rb.UID)),
				"finalizer":             same(a.GetFinalizers()[0], b.GetFinalizers()[0]),
				"not the name":          !same(a.GetName(), b.GetName()),
				"not annotation values": !same(a.GetAnnotations()["flinkop.io/x"], b.GetAnnotations()["flinkop.io/x"]),
			} {
				if !shared {
					t.Errorf("%s: want one copy shared (or, for what is the object's own, two)", what)
				}
			}
		})
	}
}
