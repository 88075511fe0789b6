package controller

import (
	"sync"

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
// left alone: most are unique to their object (content hashes).
func internMeta(m metav1.Object) {
	m.SetNamespace(strs.intern(m.GetNamespace()))
	if l := m.GetLabels(); len(l) > 0 {
		out := make(map[string]string, len(l))
		for k, v := range l {
			out[strs.intern(k)] = strs.intern(v)
		}
		m.SetLabels(out)
	}
	if a := m.GetAnnotations(); len(a) > 0 {
		out := make(map[string]string, len(a))
		for k, v := range a {
			out[strs.intern(k)] = v
		}
		m.SetAnnotations(out)
	}
	refs := m.GetOwnerReferences()
	for i := range refs {
		r := &refs[i]
		r.APIVersion, r.Kind, r.Name = strs.intern(r.APIVersion), strs.intern(r.Kind), strs.intern(r.Name)
		r.UID = types.UID(strs.intern(string(r.UID)))
	}
}

// maxInterned bounds the strings the interner holds: a fleet of 10,000 deployments needs
// about 20,000 (each one's name and UID, and a few dozen keys and values all share).
const maxInterned = 1 << 17

// strs is the cache transforms' interner.
var strs = &interner{m: map[string]string{}, max: maxInterned}

// interner keeps one copy of each string it is given, at most max of them: when full it
// starts afresh (strings already shared stay shared, as strings never change), so the
// strings of deleted resources cost at most max entries. It keeps its copies alive itself:
// the standard library's unique package holds them only while a Handle exists, so strings
// interned through unique.Make(s).Value() stop being shared at the next collection.
type interner struct {
	mu  sync.Mutex
	m   map[string]string
	max int
}

func (i *interner) intern(s string) string {
	if s == "" {
		return s
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if c, ok := i.m[s]; ok {
		return c
	}
	if len(i.m) >= i.max {
		clear(i.m)
	}
	i.m[s] = s
	return s
}
