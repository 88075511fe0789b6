package controller

import (
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
)

// interned wraps a cache transform: after it, the object's metadata strings that recur across
// the cached objects (namespace, label keys and values, annotation keys, owner references,
// finalizers) are replaced by one shared copy each, from a pool of at most maxInterned
// strings (emptied when full: objects cached before keep their shared copies). Every object
// the API server sends carries its own copies: at 10,000 deployments the operator's six
// cached objects of each repeat the label keys, the namespace and the FlinkDeployment's name,
// UID, API version and kind. (Go's unique package forgets a string at the next collection
// unless its handle is kept, so it would share only between collections.)
func interned(t toolscache.TransformFunc) toolscache.TransformFunc {
	return func(obj any) (any, error) {
		obj, err := t(obj)
		if o, ok := obj.(metav1.Object); ok && err == nil {
			internMeta(o)
		}
		return obj, err
	}
}

// internMeta interns o's recurring metadata strings in place (see interned).
func internMeta(o metav1.Object) {
	o.SetNamespace(intern(o.GetNamespace()))
	if l := o.GetLabels(); len(l) > 0 {
		m := make(map[string]string, len(l))
		for k, v := range l {
			m[intern(k)] = intern(v)
		}
		o.SetLabels(m)
	}
	if a := o.GetAnnotations(); len(a) > 0 {
		m := make(map[string]string, len(a))
		for k, v := range a {
			m[intern(k)] = v // values (content hashes) are the object's own
		}
		o.SetAnnotations(m)
	}
	refs := o.GetOwnerReferences()
	for i := range refs {
		r := &refs[i]
		r.APIVersion, r.Kind, r.Name = intern(r.APIVersion), intern(r.Kind), intern(r.Name)
		r.UID = types.UID(intern(string(r.UID)))
	}
	f := o.GetFinalizers()
	for i := range f {
		f[i] = intern(f[i])
	}
}

// maxInterned bounds the pool: a few MB of map entries at most.
const maxInterned = 1 << 17

var pool = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

// intern returns the pool's copy of s, adding s when it has none.
func intern(s string) string {
	if s == "" {
		return s
	}
	pool.Lock()
	defer pool.Unlock()
	if v, ok := pool.m[s]; ok {
		return v
	}
	if len(pool.m) >= maxInterned {
		clear(pool.m)
	}
	pool.m[s] = s
	return s
}
