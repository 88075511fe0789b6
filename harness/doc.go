// Package harness is the simulated world the operator is proven in: a virtual clock, an event
// queue, a pod simulator, Kubernetes backends (fake client, envtest), fakeflink clusters, the
// chaos plan, the invariant checker and the trace recorder.
//
// Today it holds the pieces other tests already share: fixtures (reference manifests from
// ../shared) and envtest (a real kube-apiserver with Flinkop's CRDs). The World arrives with the
// harness issue.
package harness
