package harness

import (
	"context"
	"strings"
	"testing"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestCheckerCatchesScalingDuringASavepoint: a ScalingReport recorded while a savepoint is in
// flight (what an autoscaler that ignored the job's operations would do) breaks invariant 8;
// one recorded at steady state does not.
func TestCheckerCatchesScalingDuringASavepoint(t *testing.T) {
	w, c := checkedWorld(t, 2)
	_ = w.Apply(savepointJob())
	stepUntil(t, w, c, "running", runningGen(1))
	cur, _ := w.Get("job")
	w.events.Event(cur, "Normal", "ScalingReport", "Scaling vertices: …")
	if v := c.Check("job"); len(v) != 0 {
		t.Fatalf("a decision at steady state: violations %v", v)
	}
	cur.Status.JobStatus.SavepointInfo = &flinkv1beta1.SavepointInfo{TriggerID: "t-1"}
	if err := w.Client.Status().Update(context.Background(), cur); err != nil {
		t.Fatal(err)
	}
	w.events.Event(cur, "Normal", "ScalingReport", "Scaling vertices: …")
	if v := c.Check("job"); len(v) != 1 || !strings.Contains(v[0], "a savepoint in flight (invariant 8)") {
		t.Errorf("violations %v, want one of invariant 8", v)
	}
}
