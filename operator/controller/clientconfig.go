package controller

import "k8s.io/client-go/rest"

// Client-side rate limits of the operator's Kubernetes client. controller-runtime's defaults
// (20 QPS, burst 30) would make a fleet of thousands wait on the client, not on the API server:
// a first deploy takes about 13 requests per FlinkDeployment besides its Events, so 1,000 new
// deployments need 13,000, and at 100 QPS the fleet benchmark's 1,000 waited on the client.
// API Priority and Fairness on the server is what protects it; these bound a runaway operator.
const (
	DefaultQPS   = 500
	DefaultBurst = 1000
)

// WithRateLimits returns a copy of cfg with the client-side rate limits qps and burst.
func WithRateLimits(cfg *rest.Config, qps float32, burst int) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.QPS, out.Burst = qps, burst
	return out
}
