package controller

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// interned are the strings that recur on every object the operator caches: its label keys
// and values, its annotation keys, the deployment controller's revision annotation and the
// owner reference of a FlinkDeployment. The API server sends them with every object and the
// decoder allocates each anew; at 10,000 deployments the cache holds some 60,000 copies of
// each. The table is fixed: nothing a tenant writes grows it.
var interned = func() map[string]string {
	m := map[string]string{}
	for _, s := range []string{
		act.LabelApp, act.LabelComponent, act.LabelManagedBy, act.ManagedBy, act.LabelType, act.TypeNative,
		act.LabelConfigMapType, act.ConfigMapTypeHA, act.ComponentJobManager, act.ComponentTaskManager,
		act.AnnotationContentHash, act.AnnotationGeneration, act.AnnotationRun, act.AnnotationIngressHash,
		"pod-template-hash", "deployment.kubernetes.io/revision",
		flinkv1beta1.GroupVersion.String(), "FlinkDeployment", "FlinkSessionJob",
	} {
		m[s] = s
	}
	return m
}()

// intern is s, or the table's copy of it.
func intern(s string) string {
	if c, ok := interned[s]; ok {
		return c
	}
	return s
}

// internMap is m with its keys and values interned (a new map of m's size).
func internMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[intern(k)] = intern(v)
	}
	return out
}

// internMeta points obj's labels, annotation keys and owner references at the interned
// strings, so the cache holds one copy of each.
func internMeta(obj metav1.Object) {
	obj.SetLabels(internMap(obj.GetLabels()))
	obj.SetAnnotations(internMap(obj.GetAnnotations()))
	refs := obj.GetOwnerReferences()
	for i := range refs {
		refs[i].APIVersion, refs[i].Kind = intern(refs[i].APIVersion), intern(refs[i].Kind)
	}
}

// interning is transform t followed by internMeta of what it returns.
func interning(t toolscache.TransformFunc) toolscache.TransformFunc {
	return func(in any) (any, error) {
		out, err := t(in)
		if o, ok := out.(metav1.Object); ok && err == nil {
			internMeta(o)
		}
		return out, err
	}
}
