package act

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestDeleteHA: a cluster's HA ConfigMaps are deleted one by one, as the cache shows them,
// never by a delete of a collection (the API server would read every ConfigMap of the
// namespace); with none in the cache nothing is read past it; another cluster's HA metadata
// of the same cluster id (the resource has no cluster of its own) is left alone.
func TestDeleteHA(t *testing.T) {
	d := &flinkv1beta1.FlinkDeployment{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", UID: "uid-a"}}
	own := []metav1.OwnerReference{{APIVersion: "flink.apache.org/v1beta1", Kind: "FlinkDeployment", Name: "a", UID: "uid-a", Controller: ptr.To(true)}}
	ha := func(app, name string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{
			LabelApp: app, LabelType: TypeNative, LabelConfigMapType: ConfigMapTypeHA,
		}}}
	}
	config := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ConfigMapName("a"), Namespace: "ns", OwnerReferences: own}}
	for name, tc := range map[string]struct {
		objs      []client.Object
		readsPast bool
		want      []string
	}{
		"its own":           {objs: []client.Object{config, ha("a", "a-cluster-config-map"), ha("a", "a-0001-config-map"), ha("b", "b-cluster-config-map")}, readsPast: true, want: []string{"b-cluster-config-map", ConfigMapName("a")}},
		"none":              {objs: []client.Object{config, ha("b", "b-cluster-config-map")}, want: []string{"b-cluster-config-map", ConfigMapName("a")}},
		"another cluster's": {objs: []client.Object{ha("a", "a-cluster-config-map")}, readsPast: true, want: []string{"a-cluster-config-map"}},
	} {
		t.Run(name, func(t *testing.T) {
			c := interceptor.NewClient(fake.NewClientBuilder().WithObjects(tc.objs...).Build(), interceptor.Funcs{
				DeleteAllOf: func(context.Context, client.WithWatch, client.Object, ...client.DeleteAllOfOption) error {
					return errors.New("a collection delete")
				},
			})
			readPast := false
			reader := interceptor.NewClient(fake.NewClientBuilder().WithObjects(tc.objs...).Build(), interceptor.Funcs{
				Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
					readPast = true
					return c.Get(ctx, key, obj, opts...)
				},
			})
			e := &Executor{Client: c, Reader: reader, HASelector: func(d *flinkv1beta1.FlinkDeployment) client.MatchingLabels {
				return client.MatchingLabels{LabelApp: d.Name, LabelType: TypeNative, LabelConfigMapType: ConfigMapTypeHA}
			}}
			if err := e.deleteHA(t.Context(), d); err != nil {
				t.Fatalf("deleteHA: %v", err)
			}
			if readPast != tc.readsPast {
				t.Errorf("read past the cache: %v, want %v", readPast, tc.readsPast)
			}
			var left corev1.ConfigMapList
			if err := c.List(t.Context(), &left); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, cm := range left.Items {
				names = append(names, cm.Name)
			}
			if diff := cmp.Diff(tc.want, names); diff != "" {
				t.Errorf("ConfigMaps left (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDeletionRemovesHAMetadataTheCacheMissed: the last pass of a deletion reads the cluster's
// and its job's HA ConfigMaps past the cache by name (a JobManager may have written one just
// before it stopped) and deletes those with Flink's HA labels of its cluster id, before the
// flink-config ConfigMap goes; one of those names without the labels stays.
func TestDeletionRemovesHAMetadataTheCacheMissed(t *testing.T) {
	d := &flinkv1beta1.FlinkDeployment{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", UID: "uid-a"}}
	d.Status.JobStatus.JobID = "job1"
	own := []metav1.OwnerReference{{APIVersion: "flink.apache.org/v1beta1", Kind: "FlinkDeployment", Name: "a", UID: "uid-a", Controller: ptr.To(true)}}
	flinks := map[string]string{LabelApp: "a", LabelType: TypeNative, LabelConfigMapType: ConfigMapTypeHA}
	config := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ConfigMapName("a"), Namespace: "ns", OwnerReferences: own, Labels: map[string]string{LabelType: TypeNative}}}
	server := fake.NewClientBuilder().WithObjects(config,
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: HAClusterConfigMapName("a"), Namespace: "ns", Labels: flinks}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: HAJobConfigMapName("a", "job1"), Namespace: "ns"}}, // not Flink's
	).Build()
	cache := fake.NewClientBuilder().WithObjects(config).Build() // has not seen the HA ConfigMaps
	c := interceptor.NewClient(server, interceptor.Funcs{
		Get: func(ctx context.Context, _ client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			return cache.Get(ctx, key, obj, opts...)
		},
		List: func(ctx context.Context, _ client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			return cache.List(ctx, list, opts...)
		},
	})
	e := &Executor{Client: c, Reader: server, HASelector: func(d *flinkv1beta1.FlinkDeployment) client.MatchingLabels {
		return client.MatchingLabels{LabelApp: d.Name, LabelType: TypeNative, LabelConfigMapType: ConfigMapTypeHA}
	}, Lister: AppLister{}}
	if err := e.deleteAll(t.Context(), d); err != nil {
		t.Fatalf("deleteAll: %v", err)
	}
	var left corev1.ConfigMapList
	if err := server.List(t.Context(), &left); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, cm := range left.Items {
		names = append(names, cm.Name)
	}
	if diff := cmp.Diff([]string{HAJobConfigMapName("a", "job1")}, names); diff != "" {
		t.Errorf("ConfigMaps left on the server (-want +got):\n%s", diff)
	}
}
