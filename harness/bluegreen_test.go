package harness

import (
	"strings"
	"testing"
	"time"

	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// blueGreen is a blue/green deployment of savepointJob's spec.
func blueGreen() *flinkv1beta1.FlinkBlueGreenDeployment {
	return fixtures.BlueGreen("", "bg", savepointJob().Spec)
}

// runBlueGreenUntil steps until the resource is in state, checking every invariant (its
// children's included) after each step.
func runBlueGreenUntil(t *testing.T, w *World, c *Checker, state flinkv1beta1.BlueGreenState) *flinkv1beta1.FlinkBlueGreenDeployment {
	t.Helper()
	var b *flinkv1beta1.FlinkBlueGreenDeployment
	err := c.StepUntil(w.Now().Add(15*time.Minute), func() bool {
		var err error
		b, err = w.GetBlueGreen("bg")
		return err == nil && b.Status.BlueGreenState == state && b.Status.JobStatus.State != flinkv1beta1.JobStatusReconciling
	}, "bg-blue", "bg-green")
	if err != nil {
		t.Fatalf("%v\n%s", err, w.Trace)
	}
	if b.Status.BlueGreenState != state {
		t.Fatalf("not %s after 15 minutes: %+v\n%s", state, b.Status, w.Trace)
	}
	return b
}

// TestBlueGreenSwitchKeepsState: a change of the template starts green from a savepoint of
// blue's running job, deletes blue once green is stable, and green's job continues from
// where blue's was when the switch began (no state lost); invariants B1–B5 hold throughout.
func TestBlueGreenSwitchKeepsState(t *testing.T) {
	w, err := NewWorld(1)
	if err != nil {
		t.Fatal(err)
	}
	c := NewChecker(w)
	c.WatchBlueGreen("bg")
	b := blueGreen()
	if err := w.ApplyBlueGreen(b); err != nil {
		t.Fatal(err)
	}
	runBlueGreenUntil(t, w, c, flinkv1beta1.BlueGreenActiveBlue)
	if err := w.RunFor(time.Minute); err != nil {
		t.Fatal(err)
	}
	blue := w.Sim.Cluster(w.Namespace, "bg-blue")
	jobs := blue.Jobs()
	if len(jobs) != 1 {
		t.Fatalf("blue runs %d jobs", len(jobs))
	}
	before := jobs[0].Offset(w.Now())

	b.Spec.Template.Spec.Image = "flink:1.20.1"
	if err := w.ApplyBlueGreen(b); err != nil {
		t.Fatal(err)
	}
	got := runBlueGreenUntil(t, w, c, flinkv1beta1.BlueGreenActiveGreen)
	if got.Status.JobStatus.State != flinkv1beta1.JobStatusRunning || got.Status.Error != "" {
		t.Errorf("status %+v", got.Status)
	}
	if err := w.RunFor(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Get("bg-blue"); err == nil {
		t.Errorf("blue still exists after the switch")
	}
	green, err := w.Get("bg-green")
	if err != nil {
		t.Fatal(err)
	}
	path := green.Spec.Job.InitialSavepointPath
	if !strings.HasPrefix(path, "file:///data/sp") && !strings.HasPrefix(path, "file:/data/sp") {
		t.Errorf("green starts from %q, not a savepoint under the savepoint directory", path)
	}
	starts := w.Sim.Cluster(w.Namespace, "bg-green").Starts()
	if len(starts) == 0 || starts[0].RestorePath != path || starts[0].Offset < before {
		t.Errorf("green's first start %+v: want a restore from %s at offset ≥ %d (blue's when the switch began)", starts, path, before)
	}
	if v := c.Check("bg-green"); len(v) > 0 {
		t.Errorf("violations: %v", v)
	}
}

// TestBlueGreenFailedGreenKeepsBlue: a green that never becomes ready is deleted after the
// abort grace period; blue keeps running, and the resource reports FAILING.
func TestBlueGreenFailedGreenKeepsBlue(t *testing.T) {
	w, err := NewWorld(2)
	if err != nil {
		t.Fatal(err)
	}
	c := NewChecker(w)
	c.WatchBlueGreen("bg")
	b := blueGreen()
	b.Spec.Configuration[flinkv1beta1.BlueGreenAbortGracePeriod] = "2 min"
	if err := w.ApplyBlueGreen(b); err != nil {
		t.Fatal(err)
	}
	runBlueGreenUntil(t, w, c, flinkv1beta1.BlueGreenActiveBlue)
	b.Spec.Template.Spec.Image = "flink:1.20.1"
	if err := w.ApplyBlueGreen(b); err != nil {
		t.Fatal(err)
	}
	// Green's JobManager never starts.
	w.DelayJobManagerStart("bg-green", time.Hour)
	err = c.StepUntil(w.Now().Add(10*time.Minute), func() bool {
		got, err := w.GetBlueGreen("bg")
		return err == nil && got.Status.JobStatus.State == flinkv1beta1.JobStatusFailing && got.Status.BlueGreenState == flinkv1beta1.BlueGreenActiveBlue
	}, "bg-blue", "bg-green")
	if err != nil {
		t.Fatalf("%v\n%s", err, w.Trace)
	}
	got, _ := w.GetBlueGreen("bg")
	if got.Status.BlueGreenState != flinkv1beta1.BlueGreenActiveBlue || !strings.Contains(got.Status.Error, "Aborting deployment 'bg-green'") {
		t.Fatalf("status %+v\n%s", got.Status, w.Trace)
	}
	if d, err := w.Get("bg-blue"); err != nil || d.DeletionTimestamp != nil {
		t.Errorf("blue is gone or going: %v", err)
	}
}
