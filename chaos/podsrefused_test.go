package chaos_test

import (
	"strings"
	"testing"
	"time"

	"github.com/flinkop/flinkop/chaos"
	"github.com/flinkop/flinkop/harness"
)

// TestRefusedPodsFailAJobWithoutRestarts: a native job with no restart strategy whose
// TaskManager pods the API refuses fails after slot.request.timeout, and the operator reports
// why in status.error and a Warning Event.
func TestRefusedPodsFailAJobWithoutRestarts(t *testing.T) {
	w, err := harness.NewWorld(5)
	if err != nil {
		t.Fatal(err)
	}
	d := harness.DemoDeployment()
	d.Spec.FlinkConfiguration.Set("restart-strategy.type", "none")
	d.Spec.FlinkConfiguration.Set("slot.request.timeout", "60 s")
	// The namespace's quota is full before the deployment comes: no TaskManager pod at all.
	if err := (chaos.TaskManagerPodsRefused{For: 10 * time.Minute}).Apply(w, d.Name); err != nil {
		t.Fatal(err)
	}
	if err := w.Apply(d); err != nil {
		t.Fatal(err)
	}
	if err := w.RunFor(3 * time.Minute); err != nil {
		t.Fatal(err)
	}
	got, err := w.Get(d.Name)
	if err != nil {
		t.Fatal(err)
	}
	const cause = "NoResourceAvailableException: Slot request bulk is not fulfillable!"
	if got.Status.JobStatus.State != "FAILED" || !strings.Contains(got.Status.Error, cause) {
		t.Errorf("job %s, status.error %q; want FAILED with %q", got.Status.JobStatus.State, got.Status.Error, cause)
	}
	warned := false
	for _, e := range w.Events() {
		warned = warned || (e.Type == "Warning" && strings.Contains(e.Message, cause))
	}
	if !warned {
		t.Errorf("no Warning Event with %q in %v", cause, w.Events())
	}
}
