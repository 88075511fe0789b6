package observe

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestDeletionLooksPastALaggingCache: while a resource is deleted, objects of its cluster the
// cache has not seen yet (created a moment before the deletion) are read past it by name and
// hold the deletion; objects there that the resource does not control, or that the cache will
// never hold (an older flink-config ConfigMap without Flink's type label), do not.
func TestDeletionLooksPastALaggingCache(t *testing.T) {
	cm := func(name string, labels map[string]string, owners []metav1.OwnerReference) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: labels, OwnerReferences: owners}}
	}
	flinks := map[string]string{act.LabelType: act.TypeNative}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{
		Name: act.RESTServiceName("a"), Namespace: "ns", OwnerReferences: controlledByA(),
		Labels: map[string]string{act.LabelManagedBy: act.ManagedBy},
	}}
	for name, tc := range map[string]struct {
		server      []client.Object
		reader      bool
		neverSynced bool
		want        []string
	}{
		"the server holds the cluster's objects": {
			server: []client.Object{cm(act.ConfigMapName("a"), flinks, controlledByA()), svc}, reader: true,
			want: []string{"configmap/" + act.ConfigMapName("a"), "service/" + act.RESTServiceName("a")},
		},
		"the server holds another's ConfigMap of that name": {server: []client.Object{cm(act.ConfigMapName("a"), flinks, nil)}, reader: true},
		"an older ConfigMap the cache never holds":          {server: []client.Object{cm(act.ConfigMapName("a"), nil, controlledByA())}, reader: true},
		"nothing is left":                {reader: true},
		"no reader past the cache":       {server: []client.Object{svc}},
		"a resource that never deployed": {server: []client.Object{svc}, reader: true, neverSynced: true},
	} {
		t.Run(name, func(t *testing.T) {
			cache := fake.NewClientBuilder().Build()
			o := &Observer{Client: cache, Flink: func(*flinkv1beta1.FlinkDeployment) FlinkAPI { return &stalling{} }, RESTBudget: time.Millisecond}
			if tc.reader {
				o.Reader = fake.NewClientBuilder().WithObjects(tc.server...).Build()
			}
			now := metav1.Now()
			d := &flinkv1beta1.FlinkDeployment{
				ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", UID: "uid-a", DeletionTimestamp: &now},
				Spec:       flinkv1beta1.FlinkDeploymentSpec{Job: &flinkv1beta1.JobSpec{}},
			}
			if !tc.neverSynced {
				d.Status.ReconciliationStatus.LastReconciledSpec = "{}"
			}
			obs, err := o.Observe(t.Context(), d)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, obs.Leftovers); diff != "" {
				t.Errorf("leftovers (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDeletionReadsItsObjectsByName: what deletion waits for is read from the cache by name,
// never by a list of Services or of its own ConfigMaps (which scans the namespace's, once per
// pass), and
// counts only what the resource controls.
func TestDeletionReadsItsObjectsByName(t *testing.T) {
	meta := func(name string, owners []metav1.OwnerReference) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: "ns", OwnerReferences: owners}
	}
	cache := fake.NewClientBuilder().WithObjects(
		&corev1.Service{ObjectMeta: meta(act.InternalServiceName("a"), controlledByA())},
		&corev1.Service{ObjectMeta: meta(act.RESTServiceName("a"), nil)}, // another's
		&corev1.ConfigMap{ObjectMeta: meta(act.AutoscalerConfigMapName("a"), controlledByA())},
		&corev1.ConfigMap{ObjectMeta: meta(act.ConfigMapName("a"), controlledByA())},
	).WithInterceptorFuncs(interceptor.Funcs{
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			sel := (&client.ListOptions{}).ApplyOptions(opts).LabelSelector
			ha := sel != nil && strings.Contains(sel.String(), act.LabelConfigMapType+"="+act.ConfigMapTypeHA)
			switch list.(type) {
			case *corev1.ServiceList:
				t.Errorf("deletion listed Services (%v)", sel)
			case *corev1.ConfigMapList:
				if !ha { // HA ConfigMaps are listed through the app index
					t.Errorf("deletion listed ConfigMaps other than HA ones (%v)", sel)
				}
			}
			return c.List(ctx, list, opts...)
		},
	}).Build()
	o := &Observer{Client: cache, Flink: func(*flinkv1beta1.FlinkDeployment) FlinkAPI { return &stalling{} }, RESTBudget: time.Millisecond}
	now := metav1.Now()
	d := &flinkv1beta1.FlinkDeployment{
		ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", UID: "uid-a", DeletionTimestamp: &now},
		Spec:       flinkv1beta1.FlinkDeploymentSpec{Job: &flinkv1beta1.JobSpec{}},
	}
	obs, err := o.Observe(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"service/" + act.InternalServiceName("a"), "configmap/" + act.AutoscalerConfigMapName("a"), "configmap/" + act.ConfigMapName("a")}
	if diff := cmp.Diff(want, obs.Leftovers); diff != "" {
		t.Errorf("leftovers (-want +got):\n%s", diff)
	}
}
