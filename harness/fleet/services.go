package fleet

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ServiceRate is how fast an API server created Services at one concurrency.
type ServiceRate struct {
	// At is how many creates were under way at once; Headless whether the Services took no
	// cluster IP.
	At       int
	Headless bool
	// N Services took Elapsed; Latency is each create's, sorted.
	N       int
	Elapsed time.Duration
	Latency []time.Duration
}

// PerSecond is the creates completed per second.
func (r ServiceRate) PerSecond() float64 { return float64(r.N) / r.Elapsed.Seconds() }

// Write prints r as one line.
func (r ServiceRate) Write(w io.Writer) {
	kind := "cluster IP"
	if r.Headless {
		kind = "headless"
	}
	_, _ = fmt.Fprintf(w, "%4d at once, %-10s  %5d in %6.1f s  %6.0f/s  p50 %s  p99 %s\n",
		r.At, kind, r.N, r.Elapsed.Seconds(), r.PerSecond(), ms(pct(r.Latency, 50)), ms(pct(r.Latency, 99)))
}

// ServiceCreates creates n Services in namespace ns (which it creates), at creates under way
// at once: what the operator's Service slots are sized by (kube-apiserver allocates cluster
// IPs one at a time).
func ServiceCreates(ctx context.Context, c client.Client, ns string, n, at int, headless bool) (ServiceRate, error) {
	namespace := &corev1.Namespace{}
	namespace.Name = ns
	if err := c.Create(ctx, namespace); err != nil {
		return ServiceRate{}, fmt.Errorf("create namespace %s: %w", ns, err)
	}
	r := ServiceRate{At: at, Headless: headless, N: n, Latency: make([]time.Duration, n)}
	start := time.Now()
	err := parallel(ctx, at, n, func(ctx context.Context, i int) error {
		s := &corev1.Service{}
		s.Namespace, s.Name = ns, fmt.Sprintf("s%d-rest", i)
		s.Spec.Selector = map[string]string{"app": s.Name}
		s.Spec.Ports = []corev1.ServicePort{{Name: "rest", Port: 8081}}
		if headless {
			s.Spec.ClusterIP = corev1.ClusterIPNone
		}
		t := time.Now()
		err := c.Create(ctx, s)
		r.Latency[i] = time.Since(t) // each create its own slot; parallel waits for all
		if err != nil {
			return fmt.Errorf("create Service %d: %w", i, err)
		}
		return nil
	})
	r.Elapsed = time.Since(start)
	slices.Sort(r.Latency)
	return r, err
}
