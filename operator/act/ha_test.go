package act

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// haWorld is an executor whose cache holds cached and whose API server holds server: reads go
// to the cache (Reader to the server), writes to the server, which refuses a delete whose UID
// precondition names another object and any collection delete.
func haWorld(t *testing.T, cached, server []client.Object) (*Executor, client.Client) {
	t.Helper()
	cache := fake.NewClientBuilder().WithObjects(cached...).Build()
	api := fake.NewClientBuilder().WithObjects(server...).Build()
	c := interceptor.NewClient(api, interceptor.Funcs{
		Get: func(ctx context.Context, _ client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			return cache.Get(ctx, key, obj, opts...)
		},
		List: func(ctx context.Context, _ client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			return cache.List(ctx, list, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			var o client.DeleteOptions
			o.ApplyOptions(opts)
			var cur corev1.ConfigMap
			if err := c.Get(ctx, client.ObjectKeyFromObject(obj), &cur); err == nil && o.Preconditions != nil && o.Preconditions.UID != nil && *o.Preconditions.UID != cur.UID {
				return apierrors.NewConflict(corev1.Resource("configmaps"), obj.GetName(), errors.New("UID precondition failed"))
			}
			return c.Delete(ctx, obj, opts...)
		},
		DeleteAllOf: func(context.Context, client.WithWatch, client.Object, ...client.DeleteAllOfOption) error {
			return errors.New("a collection delete")
		},
	})
	return &Executor{Client: c, Reader: api, HASelector: func(d *flinkv1beta1.FlinkDeployment) client.MatchingLabels {
		return client.MatchingLabels{LabelApp: d.Name, LabelType: TypeNative, LabelConfigMapType: ConfigMapTypeHA}
	}}, api
}

func configMapNames(t *testing.T, c client.Reader) []string {
	t.Helper()
	var list corev1.ConfigMapList
	if err := c.List(t.Context(), &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, cm := range list.Items {
		names = append(names, cm.Name)
	}
	slices.Sort(names)
	return names
}

// TestDeleteHA: a cluster's HA ConfigMaps are deleted one by one, never by a collection
// delete: those the cache shows, and its cluster's and its job's read past the cache (the
// cache may not have seen them yet); one replaced meanwhile is deleted all the same; a
// ConfigMap of one of those names without Flink's HA labels of its cluster id stays, and so
// does another cluster's HA metadata of the same cluster id (the resource has no cluster of
// its own).
func TestDeleteHA(t *testing.T) {
	d := &flinkv1beta1.FlinkDeployment{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", UID: "uid-a"}}
	d.Status.JobStatus.JobID = "job1"
	own := []metav1.OwnerReference{{APIVersion: "flink.apache.org/v1beta1", Kind: "FlinkDeployment", Name: "a", UID: "uid-a", Controller: ptr.To(true)}}
	ha := func(app, name string, uid types.UID) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: uid, Labels: map[string]string{
			LabelApp: app, LabelType: TypeNative, LabelConfigMapType: ConfigMapTypeHA,
		}}}
	}
	config := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ConfigMapName("a"), Namespace: "ns", OwnerReferences: own}}
	cluster, job := HAClusterConfigMapName("a"), HAJobConfigMapName("a", "job1")
	unlabelled := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: cluster, Namespace: "ns"}}
	for name, tc := range map[string]struct {
		cached, server []client.Object
		want           []string
	}{
		"in the cache": {
			cached: []client.Object{config, ha("a", cluster, "1"), ha("a", "a-job0-config-map", "2"), ha("b", "b-cluster-config-map", "3")},
			server: []client.Object{config, ha("a", cluster, "1"), ha("a", "a-job0-config-map", "2"), ha("b", "b-cluster-config-map", "3")},
			want:   []string{"b-cluster-config-map", ConfigMapName("a")},
		},
		"not yet in the cache": {
			cached: []client.Object{config},
			server: []client.Object{config, ha("a", cluster, "1"), ha("a", job, "2")},
			want:   []string{ConfigMapName("a")},
		},
		"replaced meanwhile": {
			cached: []client.Object{config, ha("a", cluster, "old")},
			server: []client.Object{config, ha("a", cluster, "new")},
			want:   []string{ConfigMapName("a")},
		},
		"none": {
			cached: []client.Object{config, ha("b", "b-cluster-config-map", "3")},
			server: []client.Object{config, ha("b", "b-cluster-config-map", "3")},
			want:   []string{"b-cluster-config-map", ConfigMapName("a")},
		},
		"its names without its labels": {
			cached: []client.Object{config},
			server: []client.Object{config, unlabelled, ha("b", job, "2")},
			want:   []string{job, cluster, ConfigMapName("a")},
		},
		"another cluster's": {
			cached: []client.Object{ha("a", cluster, "1")},
			server: []client.Object{ha("a", cluster, "1"), ha("a", job, "2")},
			want:   []string{job, cluster},
		},
	} {
		t.Run(name, func(t *testing.T) {
			e, api := haWorld(t, tc.cached, tc.server)
			if err := e.deleteHA(t.Context(), d); err != nil {
				t.Fatalf("deleteHA: %v", err)
			}
			want := slices.Sorted(slices.Values(tc.want))
			if diff := cmp.Diff(want, configMapNames(t, api)); diff != "" {
				t.Errorf("ConfigMaps left on the server (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDeletionRemovesHAMetadataTheCacheMissed: the last pass of a deletion, once no JobManager
// is left, reads the cluster's and its job's HA ConfigMaps past the cache and deletes them
// before the flink-config ConfigMap goes (after which they are no longer known to be its).
func TestDeletionRemovesHAMetadataTheCacheMissed(t *testing.T) {
	d := &flinkv1beta1.FlinkDeployment{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", UID: "uid-a"}}
	d.Status.JobStatus.JobID = "job1"
	own := []metav1.OwnerReference{{APIVersion: "flink.apache.org/v1beta1", Kind: "FlinkDeployment", Name: "a", UID: "uid-a", Controller: ptr.To(true)}}
	flinks := map[string]string{LabelApp: "a", LabelType: TypeNative, LabelConfigMapType: ConfigMapTypeHA}
	config := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ConfigMapName("a"), Namespace: "ns", OwnerReferences: own, Labels: map[string]string{LabelType: TypeNative}}}
	e, api := haWorld(t, []client.Object{config}, []client.Object{
		config,
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: HAJobConfigMapName("a", "job1"), Namespace: "ns", Labels: flinks}},
	})
	if err := e.deleteAll(t.Context(), d); err != nil {
		t.Fatalf("deleteAll: %v", err)
	}
	if names := configMapNames(t, api); len(names) != 0 {
		t.Errorf("ConfigMaps left on the server: %v, want none", names)
	}
}
