package controller

import (
	"unique"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
)

// interned wraps a cache transform: what it keeps of an object then shares the strings that
// many cached objects repeat (namespace, label keys and values, annotation keys, owner
// references) with every other object that has them, instead of one copy per object as the
// decoder makes. A deployment's seven cached objects carry its name and UID in their labels
// and owner references, and all of them the same label keys: at 10,000 deployments that is
// a few hundred thousand strings.
func interned(t toolscache.TransformFunc) toolscache.TransformFunc {
	return func(obj any) (any, error) {
		out, err := t(obj)
		if m, ok := out.(metav1.Object); ok && err == nil {
			internMeta(m)
		}
		return out, err
	}
}

// internMeta replaces m's repeated strings by their canonical copies. Annotation values are
// left alone: most are unique to their object (content hashes), and a canonical copy lives
// as long as any object refers to it.
func internMeta(m metav1.Object) {
	m.SetNamespace(intern(m.GetNamespace()))
	if l := m.GetLabels(); len(l) > 0 {
		out := make(map[string]string, len(l))
		for k, v := range l {
			out[intern(k)] = intern(v)
		}
		m.SetLabels(out)
	}
	if a := m.GetAnnotations(); len(a) > 0 {
		out := make(map[string]string, len(a))
		for k, v := range a {
			out[intern(k)] = v
		}
		m.SetAnnotations(out)
	}
	refs := m.GetOwnerReferences()
	for i := range refs {
		r := &refs[i]
		r.APIVersion, r.Kind, r.Name = intern(r.APIVersion), intern(r.Kind), intern(r.Name)
		r.UID = types.UID(intern(string(r.UID)))
	}
}

func intern(s string) string { return unique.Make(s).Value() }
