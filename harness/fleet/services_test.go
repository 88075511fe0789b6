package fleet

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// The API counter counts the requests the API server failed or did not answer by verb,
// resource and code, and the report lists them, most first.
func TestAPICounterCountsFailures(t *testing.T) {
	codes := map[string]int{"/api/v1/namespaces/fleet/services": 504, "/api/v1/namespaces/fleet/configmaps": 201}
	c := &apiCounter{inner: roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if code, ok := codes[req.URL.Path]; ok {
			return &http.Response{StatusCode: code, Body: http.NoBody}, nil
		}
		return nil, errors.New("connection refused")
	})}
	for _, path := range []string{"/api/v1/namespaces/fleet/services", "/api/v1/namespaces/fleet/services", "/api/v1/namespaces/fleet/configmaps", "/api/v1/namespaces/fleet/pods"} {
		req, _ := http.NewRequest(http.MethodPost, "https://api"+path, nil)
		_, _ = c.RoundTrip(req)
	}
	want := map[string]int64{"POST services 504": 2, "POST pods (no answer)": 1}
	if diff := cmp.Diff(want, c.failures()); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	if got := mostFirst(c.failures(), func(n int64) string { return strconv.FormatInt(n, 10) }); got != "POST services 504 2, POST pods (no answer) 1" {
		t.Errorf("listed as %q", got)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

func TestSubtract(t *testing.T) {
	got := subtract(map[string]int64{"POST events": 7, "PUT deployments": 2, "POST pods": 1}, map[string]int64{"POST events": 5, "PUT deployments": 2})
	if diff := cmp.Diff(map[string]int64{"POST events": 2, "POST pods": 1}, got); diff != "" {
		t.Errorf("subtract (-want +got):\n%s", diff)
	}
}
