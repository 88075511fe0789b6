// Package harness is the simulated world the operator is proven in. A World holds a virtual
// clock, a seeded random source, a Kubernetes API behind a Backend (the controller-runtime fake
// client, or a real kube-apiserver from harness/envtest, one namespace per world), the pod
// simulator (harness/podsim) with fakeflink clusters behind it, and the operator's real
// reconciler, called directly in a fixed order (no manager goroutines), so a run on the fake
// backend replays exactly from its seed. Step runs the next due reconcile or timer;
// RunUntilQuiet runs until nothing happens; RestartOperator replaces the reconciler as a pod
// restart would. API faults (a crash after the k-th write, 409/500 on writes, stale reads,
// missed watch events) sit between the operator and the API. The Checker checks the
// invariants (docs/testing.md lists them) after every step, the Trace records spec changes, faults, states and
// Events (as text or an HTML timeline), and RunDemo is the README's demo.
package harness
