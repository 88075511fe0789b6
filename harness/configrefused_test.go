package harness

import (
	"strings"
	"testing"
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestFlinkRefusesAnOptionValueAtStart: a Flink option value the JobManager cannot parse
// (slot.request.timeout: soon) makes it exit at start, as Flink's does: the pod crash-loops and
// the operator reports the option in status.error, not a simulator error.
func TestFlinkRefusesAnOptionValueAtStart(t *testing.T) {
	w, err := NewWorld(7)
	if err != nil {
		t.Fatal(err)
	}
	d := DemoDeployment()
	d.Spec.FlinkConfiguration.Set("slot.request.timeout", "soon")
	if err := w.Apply(d); err != nil {
		t.Fatal(err)
	}
	if err := w.RunFor(time.Minute); err != nil {
		t.Fatal(err)
	}
	got, err := w.Get(d.Name)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.JobManagerDeploymentStatus != flinkv1beta1.JobManagerError || !strings.Contains(got.Status.Error, "slot.request.timeout") {
		t.Errorf("JobManager %s, status.error %q; want ERROR naming slot.request.timeout", got.Status.JobManagerDeploymentStatus, got.Status.Error)
	}
}
