package fleet

import (
	"context"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// ServiceCreates creates every Service it times, with a cluster IP or headless as asked, and
// reports each create's latency in order.
func TestServiceCreates(t *testing.T) {
	c := fake.NewClientBuilder().Build()
	r, err := ServiceCreates(context.Background(), c, "svc", 20, 4, true)
	if err != nil {
		t.Fatal(err)
	}
	var list corev1.ServiceList
	if err := c.List(context.Background(), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 20 || len(r.Latency) != 20 || !slices.IsSorted(r.Latency) || r.PerSecond() <= 0 {
		t.Fatalf("%d Services, %d latencies (sorted: %v), %.0f/s; want 20, 20, sorted, > 0",
			len(list.Items), len(r.Latency), slices.IsSorted(r.Latency), r.PerSecond())
	}
	for _, s := range list.Items {
		if s.Spec.ClusterIP != corev1.ClusterIPNone {
			t.Errorf("Service %s has cluster IP %q, want headless", s.Name, s.Spec.ClusterIP)
		}
	}
	var out strings.Builder
	r.Write(&out)
	if !strings.Contains(out.String(), "4 at once, headless") {
		t.Errorf("report %q does not say the concurrency and kind", out.String())
	}
	if _, err := ServiceCreates(context.Background(), c, "svc", 1, 1, false); err == nil {
		t.Error("a second run in the same namespace succeeded, want the namespace's create to fail")
	}
}
