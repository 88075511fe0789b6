package chaos

import (
	"cmp"
	"time"
)

// TaskManagerPodsRefused is a full namespace quota: a TaskManager pod of a native cluster is
// evicted and the API refuses the pods Flink's resource manager asks for instead, for a while.
// The job waits for its slots and, past slot.request.timeout, fails with
// NoResourceAvailableException and restarts per its strategy. A standalone cluster's
// TaskManager Deployment keeps its pods: the fault changes nothing there.
type TaskManagerPodsRefused struct{ For time.Duration }

// Name implements Fault.
func (TaskManagerPodsRefused) Name() string { return "tm-pods-refused" }

// Apply implements Fault.
func (f TaskManagerPodsRefused) Apply(t Target, r string) error {
	return t.RefuseTaskManagerPods(r, f.For)
}

// Tune sets how long pods are refused from a script's for= (Params.For; zero keeps the
// default).
func (f TaskManagerPodsRefused) Tune(p Params) Fault {
	f.For = cmp.Or(p.For, f.For)
	return f
}
