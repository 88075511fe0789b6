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
	case *metav1.PartialObjectMetadata:
		return "meta:" + obj.GetObjectKind().GroupVersionKind().Kind
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
	if len(idx) != 2 || idx[IndexApp+"/meta:Pod"] == nil || idx[IndexApp+"/meta:ConfigMap"] == nil {
		t.Fatalf("IndexByApp registered %v, want %s on pod and ConfigMap metadata", slices.Sorted(maps.Keys(idx)), IndexApp)
	}
	objs := []client.Object{
		pod("a-jm", "a", ComponentJobManager), pod("a-tm", "a", ComponentTaskManager),
		pod("b-jm", "b", ComponentJobManager), pod("other", "", ""),
	}
	withIndex := fake.NewClientBuilder().WithObjects(objs...).
		WithIndex(PodMetadata(), IndexApp, idx[IndexApp+"/meta:Pod"]).Build()
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
			pods := PodMetadataList()
			err := tc.lister.List(t.Context(), tc.reader, pods, "ns", client.MatchingLabels(Selector("a", ComponentJobManager)))
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

// TestIndexHoldsOnlyHAConfigMaps: of ConfigMaps the app index holds Flink's HA ConfigMaps
// alone (the operator reads its own by name), and a ConfigMap list reads the index only when
// it selects HA ConfigMaps.
func TestIndexHoldsOnlyHAConfigMaps(t *testing.T) {
	idx := recordingIndexer{}
	if err := IndexByApp(t.Context(), idx); err != nil {
		t.Fatal(err)
	}
	byApp := idx[IndexApp+"/meta:ConfigMap"]
	ha := map[string]string{LabelApp: "a", LabelType: TypeNative, LabelConfigMapType: ConfigMapTypeHA}
	for name, tc := range map[string]struct {
		labels map[string]string
		want   []string
	}{
		"HA ConfigMap":           {labels: ha, want: []string{"a"}},
		"flink-config ConfigMap": {labels: map[string]string{LabelApp: "a", LabelType: TypeNative, LabelManagedBy: ManagedBy}},
		"no app label":           {labels: map[string]string{LabelConfigMapType: ConfigMapTypeHA}},
	} {
		t.Run(name, func(t *testing.T) {
			got := byApp(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Labels: tc.labels}})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("index values (-want +got):\n%s", diff)
			}
		})
	}
	// A plain reader refuses the index's field selector: a list that names it fails there.
	plain := fake.NewClientBuilder().Build()
	cms := ConfigMapMetadataList()
	if err := (AppLister{Indexed: true}).List(t.Context(), plain, cms, "ns", client.MatchingLabels{LabelApp: "a"}); err != nil {
		t.Errorf("a list of the operator's ConfigMaps used the index: %v", err)
	}
	if err := (AppLister{Indexed: true}).List(t.Context(), plain, cms, "ns", client.MatchingLabels(ha)); err == nil {
		t.Error("a list of HA ConfigMaps did not use the index")
	}
}
