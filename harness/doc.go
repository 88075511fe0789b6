// Package harness is the simulated world the operator is proven in. A World holds a virtual
// clock, a seeded random source, a fake Kubernetes API, the pod simulator (harness/podsim)
// with fakeflink clusters behind it, and the operator's real reconciler, called directly in a
// fixed order (no manager goroutines), so a run replays exactly from its seed. Step runs the
// next due reconcile or timer; RestartOperator replaces the reconciler as a pod restart would.
// The Checker checks the invariants of DESIGN §5 after every step, the Trace records spec
// changes, faults, states and Events (as text or an HTML timeline), and RunDemo is the
// README's demo. harness/fixtures and harness/envtest serve the other tests.
package harness
