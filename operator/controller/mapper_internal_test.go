package controller

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// countingMapper counts the lookups that reach it.
type countingMapper struct {
	meta.RESTMapper
	lookups int
}

func (c *countingMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	c.lookups++
	return c.RESTMapper.RESTMapping(gk, versions...)
}

var byScopeName = cmp.Comparer(func(a, b meta.RESTScope) bool { return a.Name() == b.Name() })

// TestKnownMappings: a found mapping is looked up once and then answered as found, to every
// caller in its own copy; a kind not found (a CRD not installed yet) is looked up each time,
// so it is found once it exists.
func TestKnownMappings(t *testing.T) {
	inner := meta.NewDefaultRESTMapper(nil)
	fd := flinkv1beta1.GroupVersion.WithKind("FlinkDeployment")
	inner.Add(fd, meta.RESTScopeNamespace)
	counting := &countingMapper{RESTMapper: inner}
	m := rememberMappings(counting)

	want, err := inner.RESTMapping(fd.GroupKind(), fd.Version)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		got, err := m.RESTMapping(fd.GroupKind(), fd.Version)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, byScopeName); diff != "" {
			t.Fatalf("mapping (-want +got):\n%s", diff)
		}
		got.Scope = meta.RESTScopeRoot // a caller's change stays its own
	}
	if counting.lookups != 1 {
		t.Errorf("a found mapping was looked up %d times, want 1", counting.lookups)
	}

	snap := flinkv1beta1.GroupVersion.WithKind("FlinkStateSnapshot")
	for range 2 {
		if _, err := m.RESTMapping(snap.GroupKind(), snap.Version); !meta.IsNoMatchError(err) {
			t.Fatalf("a kind the API server does not serve: err %v, want no match", err)
		}
	}
	inner.Add(snap, meta.RESTScopeNamespace)
	if _, err := m.RESTMapping(snap.GroupKind(), snap.Version); err != nil {
		t.Fatalf("the kind once served: %v", err)
	}
	if counting.lookups != 4 {
		t.Errorf("lookups %d, want 4: a kind not found is looked up again", counting.lookups)
	}
}
