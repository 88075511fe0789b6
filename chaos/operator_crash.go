package chaos

import "cmp"

// OperatorCrashAfterWrite kills the operator right after its K-th next API write (the write
// took effect, the rest of the reconcile did not), Sieve's intermediate states; Kubernetes
// restarts it.
type OperatorCrashAfterWrite struct{ K int }

// Name implements Fault.
func (OperatorCrashAfterWrite) Name() string { return "operator-crash-after-write" }

// Apply implements Fault.
func (f OperatorCrashAfterWrite) Apply(t Target, _ string) error {
	t.CrashOperatorAfterWrite(max(f.K, 1))
	return nil
}

// Tune sets after which write it crashes from a script's k= (Params.K; zero keeps the default).
func (f OperatorCrashAfterWrite) Tune(p Params) Fault {
	f.K = cmp.Or(p.K, f.K)
	return f
}
