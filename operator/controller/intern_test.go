package controller

import (
	"runtime"
	"strings"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestInternedSharesRepeatedStrings: two cached objects that repeat a label, an annotation key,
// a namespace and an owner reference hold one copy of each string after the transform, and
// keep their content; annotation values stay their own.
func TestInternedSharesRepeatedStrings(t *testing.T) {
	obj := func() *corev1.ConfigMap {
		c := strings.Clone // each object decoded on its own: its own copy of every string
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Name: c("a-config"), Namespace: c("fleet"),
			Labels:          map[string]string{c("app"): c("job-00001")},
			Annotations:     map[string]string{c("flinkop.io/content-hash"): c("abc")},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: c("flink.apache.org/v1beta1"), Kind: c("FlinkDeployment"), Name: c("job-00001"), UID: types.UID(c("uid-1"))}},
		}}
	}
	identity := func(o any) (any, error) { return o, nil }
	a, b := obj(), obj()
	want := obj()
	for _, o := range []*corev1.ConfigMap{a, b} {
		if _, err := interned(identity)(o); err != nil {
			t.Fatal(err)
		}
		runtime.GC() // objects arrive far apart: sharing must outlive collections
		runtime.GC()
	}
	if a.Namespace != want.Namespace || a.Labels["app"] != "job-00001" || a.Annotations["flinkop.io/content-hash"] != "abc" || a.OwnerReferences[0] != want.OwnerReferences[0] {
		t.Fatalf("content changed: %+v", a.ObjectMeta)
	}
	same := func(x, y string) bool { return unsafe.StringData(x) == unsafe.StringData(y) }
	key := func(m map[string]string) string {
		for k := range m {
			return k
		}
		return ""
	}
	for what, shared := range map[string]bool{
		"namespace":          same(a.Namespace, b.Namespace),
		"label key":          same(key(a.Labels), key(b.Labels)),
		"label value":        same(a.Labels["app"], b.Labels["app"]),
		"annotation key":     same(key(a.Annotations), key(b.Annotations)),
		"owner UID":          same(string(a.OwnerReferences[0].UID), string(b.OwnerReferences[0].UID)),
		"owner name and app": same(a.OwnerReferences[0].Name, b.Labels["app"]),
	} {
		if !shared {
			t.Errorf("%s is not shared", what)
		}
	}
	if same(a.Annotations["flinkop.io/content-hash"], b.Annotations["flinkop.io/content-hash"]) {
		t.Error("annotation values are interned")
	}
}

// TestStableSpecShared: a FlinkDeployment whose last stable spec is its last reconciled spec
// is cached with one copy of that JSON (through the transform CacheOptions gives the kind); a
// different stable spec stays its own.
func TestStableSpecShared(t *testing.T) {
	for name, tc := range map[string]struct {
		stable string
		shared bool
	}{
		"stable is the reconciled spec": {stable: `{"spec":{"image":"flink:1.20"}}`, shared: true},
		"stable is an older spec":       {stable: `{"spec":{"image":"flink:1.19"}}`},
	} {
		t.Run(name, func(t *testing.T) {
			d := &flinkv1beta1.FlinkDeployment{}
			d.Status.ReconciliationStatus.LastReconciledSpec = strings.Clone(`{"spec":{"image":"flink:1.20"}}`)
			d.Status.ReconciliationStatus.LastStableSpec = strings.Clone(tc.stable)
			SlimForCache(d)
			rs := d.Status.ReconciliationStatus
			if rs.LastStableSpec != tc.stable {
				t.Fatalf("last stable spec became %q", rs.LastStableSpec)
			}
			if got := unsafe.StringData(rs.LastStableSpec) == unsafe.StringData(rs.LastReconciledSpec); got != tc.shared {
				t.Errorf("shared: %v, want %v", got, tc.shared)
			}
		})
	}
}

// TestInternerIsBounded: a full interner starts afresh instead of growing.
func TestInternerIsBounded(t *testing.T) {
	i := &interner{m: map[string]string{}, max: 2}
	for _, s := range []string{"a", "b", "c", "a", ""} {
		if got := i.intern(s); got != s {
			t.Fatalf("intern(%q) = %q", s, got)
		}
		if len(i.m) > 2 {
			t.Fatalf("%d strings held, want at most 2", len(i.m))
		}
	}
}
