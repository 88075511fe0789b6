//go:build integration

package controller_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
)

// TestTenantConfigMapsCostMetadataOnly: ConfigMaps a tenant's code writes under Flink's
// ServiceAccount, with Flink's labels, 700 KiB of data and 200 KiB of annotations each, add
// their metadata alone to the operator: the API server sends its cache no data, and the cache
// keeps no annotations of a ConfigMap the operator did not render. A typed read of ConfigMaps
// through the cache is refused (it would start an informer of whole ConfigMaps). Cached whole,
// the 48 would hold 43 MiB; as metadata they grew the heap by 1.2 MiB in the run that set the
// bound.
func TestTenantConfigMapsCostMetadataOnly(t *testing.T) {
	const n = 48
	ctx, c, _, mgr := startManagerWith(t, nil)
	cache := mgr.GetCache()
	if !cache.WaitForCacheSync(ctx) {
		t.Fatal("the manager's cache did not sync")
	}
	cached := func() int {
		l := act.ConfigMapMetadataList()
		if err := cache.List(ctx, l, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		return len(l.Items)
	}
	before := cached()
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	base := heap()
	data := strings.Repeat("d", 700<<10)
	note := strings.Repeat("a", 200<<10)
	for i := range n {
		labels := map[string]string{act.LabelType: act.TypeNative, act.LabelApp: fmt.Sprintf("flood-%d", i)}
		if i%2 == 0 {
			labels[act.LabelConfigMapType] = act.ConfigMapTypeHA
		}
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{
				Name: fmt.Sprintf("flood-%d", i), Namespace: ns, Labels: labels,
				Annotations: map[string]string{"control-plane.alpha.kubernetes.io/leader": note},
			},
			Data: map[string]string{"k": data},
		}
		if err := c.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
	}
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return cached() >= before+n, nil
	}); err != nil {
		t.Fatalf("the cache shows %d of the %d ConfigMaps created: %v", cached()-before, n, err)
	}
	grown := int64(heap()) - int64(base)
	t.Logf("%d tenant ConfigMaps of 900 KiB grew the heap by %d KiB", n, grown>>10)
	if limit := int64(4 << 20); grown > limit { // their metadata, and noise; cached whole they take 43 MiB
		t.Errorf("%d tenant ConfigMaps grew the operator's heap by %d KiB, want at most %d KiB (their metadata)", n, grown>>10, limit>>10)
	}
	l := act.ConfigMapMetadataList()
	if err := cache.List(ctx, l, client.InNamespace(ns), client.MatchingLabels{act.LabelApp: "flood-0"}); err != nil || len(l.Items) != 1 {
		t.Fatalf("cache list of flood-0: %v, %d items", err, len(l.Items))
	}
	if a := l.Items[0].Annotations; len(a) != 0 {
		t.Errorf("a tenant ConfigMap is cached with %d annotations", len(a))
	}
	var typed corev1.ConfigMapList
	if err := cache.List(ctx, &typed, client.InNamespace(ns)); err == nil {
		t.Errorf("a typed ConfigMap list through the cache was served (%d items): it must be refused", len(typed.Items))
	}
}
