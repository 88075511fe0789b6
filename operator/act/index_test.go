package act

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// recordingIndexer keeps the index functions IndexByApp registers.
type recordingIndexer map[string]client.IndexerFunc

func (r recordingIndexer) IndexField(_ context.Context, obj client.Object, field string, f client.IndexerFunc) error {
	r[field+"/"+typeName(obj)] = f
	return nil
}

func typeName(obj client.Object) string {
	switch obj.(type) {
	case *corev1.Pod:
		return "Pod"
	case *corev1.ConfigMap:
		return "ConfigMap"
	}
	return "?"
}

// TestAppLister lists through the app index when the reader has it, and by labels alone when
// it does not; a reader without the index refuses an indexed list (so the index is what the
// list really reads).
func TestAppLister(t *testing.T) {
	idx := recordingIndexer{}
	if err := IndexByApp(t.Context(), idx); err != nil {
		t.Fatal(err)
	}
	if len(idx) != 2 || idx[IndexApp+"/Pod"] == nil || idx[IndexApp+"/ConfigMap"] == nil {
		t.Fatalf("IndexByApp registered %v, want %s on Pods and ConfigMaps", slices.Sorted(maps.Keys(idx)), IndexApp)
	}
	objs := []client.Object{
		pod("a-jm", "a", ComponentJobManager), pod("a-tm", "a", ComponentTaskManager),
		pod("b-jm", "b", ComponentJobManager), pod("other", "", ""),
	}
	withIndex := fake.NewClientBuilder().WithObjects(objs...).
		WithIndex(&corev1.Pod{}, IndexApp, idx[IndexApp+"/Pod"]).Build()
	plain := fake.NewClientBuilder().WithObjects(objs...).Build()
	for name, tc := range map[string]struct {
		lister  AppLister
		reader  client.Reader
		want    []string
		wantErr bool
	}{
		"indexed reader":                  {lister: AppLister{Indexed: true}, reader: withIndex, want: []string{"a-jm"}},
		"plain reader, labels only":       {lister: AppLister{}, reader: plain, want: []string{"a-jm"}},
		"plain reader told it is indexed": {lister: AppLister{Indexed: true}, reader: plain, wantErr: true},
	} {
		t.Run(name, func(t *testing.T) {
			var pods corev1.PodList
			err := tc.lister.List(t.Context(), tc.reader, &pods, "ns", client.MatchingLabels(Selector("a", ComponentJobManager)))
			if (err != nil) != tc.wantErr {
				t.Fatalf("List: %v, want error: %v", err, tc.wantErr)
			}
			var got []string
			for _, p := range pods.Items {
				got = append(got, p.Name)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("listed pods (-want +got):\n%s", diff)
			}
		})
	}
}

func pod(name, app, component string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{}}}
	if app != "" {
		p.Labels[LabelApp], p.Labels[LabelComponent] = app, component
	}
	return p
}
