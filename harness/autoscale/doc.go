// Package autoscale closes the autoscaler's loop without Kubernetes: fakeflink's workload model
// (fakeflink/workload) runs a job whose metrics are sampled as the operator samples them, the
// operator's pure autoscaler (operator/autoscaler) decides, and a decision restarts the model at
// its new parallelism. Simulate returns the trace (input, capacity, backlog, parallelism and
// utilization over virtual time, and every decision); the properties in its tests and
// `flinksim autoscale`'s chart read it.
package autoscale
