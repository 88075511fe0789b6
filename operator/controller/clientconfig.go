package controller

import "k8s.io/client-go/rest"

// Client-side rate limits of the operator's Kubernetes client. controller-runtime's defaults
// (20 QPS, burst 30) would make a fleet of thousands wait on the client, not on the API server;
// API Priority and Fairness on the server is what protects it.
const (
	DefaultQPS   = 100
	DefaultBurst = 200
)

// WithRateLimits returns a copy of cfg with the client-side rate limits qps and burst.
func WithRateLimits(cfg *rest.Config, qps float32, burst int) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.QPS, out.Burst = qps, burst
	return out
}
