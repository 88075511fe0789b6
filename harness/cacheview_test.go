package harness

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/flinkop/flinkop/operator/act"
)

// TestCacheViewHidesWhatTheCacheDoesNotHold: the operator's view shows only the objects the
// manager's cache would hold (its JobManager pods, not TaskManager pods or another's), to
// reads and to lists, and those cut down as the cache cuts them.
func TestCacheViewHidesWhatTheCacheDoesNotHold(t *testing.T) {
	pod := func(name string, labels map[string]string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: labels},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}},
		}
	}
	tm := map[string]string{act.LabelApp: "a", act.LabelComponent: act.ComponentTaskManager, act.LabelManagedBy: act.ManagedBy}
	raw := fake.NewClientBuilder().WithObjects(
		pod("jm", act.JobManagerPods("a")), pod("tm", tm), pod("other", map[string]string{act.LabelApp: "a"}),
	).Build()
	view := CacheView(raw)
	var typed corev1.PodList
	if err := view.List(t.Context(), &typed, client.InNamespace("ns")); err == nil {
		t.Errorf("a typed pod list was served (%d pods): the cache holds pods as metadata only", len(typed.Items))
	}
	if err := view.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: "jm"}, &corev1.Pod{}); err == nil {
		t.Errorf("a typed pod read was served: the cache holds pods as metadata only")
	}
	pods := act.PodMetadataList()
	if err := view.List(t.Context(), pods, client.InNamespace("ns")); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range pods.Items {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	if diff := cmp.Diff([]string{"jm"}, names); diff != "" {
		t.Errorf("listed pods (-want +got):\n%s", diff)
	}
	for _, name := range []string{"tm", "other"} {
		got := act.PodMetadata()
		err := view.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: name}, got)
		if !apierrors.IsNotFound(err) || !strings.Contains(err.Error(), `pods "`+name+`" not found`) || got.Name != "" {
			t.Errorf("get pod %s: %v (read %q), want pods %q not found and nothing read", name, err, got.Name, name)
		}
	}
	cms := fake.NewClientBuilder().WithObjects(
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "flinks", Namespace: "ns", Labels: map[string]string{act.LabelType: act.TypeNative}}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "someone-elses", Namespace: "ns"}},
	).Build()
	list := act.ConfigMapMetadataList()
	if err := CacheView(cms).List(t.Context(), list); err != nil || len(list.Items) != 1 || list.Items[0].Name != "flinks" {
		t.Errorf("listed ConfigMaps %v (%v), want only the one with Flink's type label", list.Items, err)
	}
	var typedCMs corev1.ConfigMapList
	if err := CacheView(cms).List(t.Context(), &typedCMs); err == nil {
		t.Errorf("a typed ConfigMap list was served (%d items): the cache holds ConfigMaps as metadata only", len(typedCMs.Items))
	}
	if err := view.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: "jm"}, act.PodMetadata()); err != nil {
		t.Errorf("get pod jm's metadata: %v", err)
	}
}
