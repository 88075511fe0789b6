package fleet

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// allocatorMetric is kube-apiserver's histogram of the time each ClusterIP allocation took.
const allocatorMetric = "kube_apiserver_clusterip_allocator_allocation_duration_seconds"

// Allocations are kube-apiserver's ClusterIP allocations: how many, and the time they took
// together. The API server makes them one at a time for each IP family (one lock across the
// write of each IPAddress object and two lists of all of them), so on a single-stack cluster
// their total time is a lower bound of the time to create that many Services that get a
// cluster IP.
type Allocations struct {
	N     int64
	Total time.Duration
}

// Sub is a minus b.
func (a Allocations) Sub(b Allocations) Allocations {
	return Allocations{N: a.N - b.N, Total: a.Total - b.Total}
}

// share is "10000, mean 120 ms, together 71 % of 1685 s": a against the time within;
// "unknown" when the API server's metrics could not be read, "not measured" when the phase
// did not run.
func (a Allocations) share(within time.Duration, read bool) string {
	switch {
	case !read:
		return "unknown"
	case within <= 0:
		return "not measured"
	case a.N == 0:
		return "none"
	}
	return fmt.Sprintf("%d, mean %.0f ms, together %.0f %% of %.0f s", a.N,
		float64(a.Total.Milliseconds())/float64(a.N), 100*a.Total.Seconds()/within.Seconds(), within.Seconds())
}

// clusterIPAllocations reads the allocations so far from the metrics of the API server cfg
// reaches (as an administrator).
func clusterIPAllocations(ctx context.Context, cfg *rest.Config) (Allocations, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return Allocations{}, err
	}
	raw, err := cs.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return Allocations{}, fmt.Errorf("API server metrics: %w", err)
	}
	return parseAllocations(raw)
}

// parseAllocations reads allocatorMetric from Prometheus' text format: zero before the first
// allocation (the API server has not exported it yet).
func parseAllocations(text []byte) (Allocations, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		return Allocations{}, fmt.Errorf("API server metrics: %w", err)
	}
	var a Allocations
	for _, m := range families[allocatorMetric].GetMetric() {
		h := m.GetHistogram()
		a.N += int64(h.GetSampleCount())
		a.Total += time.Duration(h.GetSampleSum() * float64(time.Second))
	}
	return a, nil
}
