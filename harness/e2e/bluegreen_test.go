//go:build e2e

package e2e

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestBlueGreenSwitchKeepsState runs examples/fakeflink-ha.yaml as a FlinkBlueGreenDeployment
// in savepoint mode: blue runs, a parallelism change switches to green, which must start from a
// savepoint of blue's job holding at least the state blue had when the spec changed; blue is
// then deleted, and deleting the resource removes green and everything of both children.
func TestBlueGreenSwitchKeepsState(t *testing.T) {
	d := fakeflinkHA(t, "e2e-bg", flinkv1beta1.UpgradeModeSavepoint)
	bg := fixtures.BlueGreen(jobNS, "e2e-bg", d.Spec)
	blue := &flinkv1beta1.FlinkDeployment{}
	blue.Name, blue.Namespace = flinkv1beta1.Blue.ChildName(bg.Name), jobNS
	green := &flinkv1beta1.FlinkDeployment{}
	green.Name, green.Namespace = flinkv1beta1.Green.ChildName(bg.Name), jobNS
	t.Cleanup(func() {
		if t.Failed() {
			dump(t, blue.Name)
			dump(t, green.Name)
		}
		deleteBlueGreen(t, bg, blue.Name, green.Name)
	})
	create(t, bg)
	activeIn := func(state flinkv1beta1.BlueGreenState) func(*flinkv1beta1.FlinkBlueGreenDeployment) bool {
		return func(b *flinkv1beta1.FlinkBlueGreenDeployment) bool {
			return b.Status.BlueGreenState == state && b.Status.JobStatus.State == flinkv1beta1.JobStatusRunning
		}
	}
	waitFor(t, bg, "ACTIVE_BLUE", startTimeout, activeIn(flinkv1beta1.BlueGreenActiveBlue))
	blue = running(t, blue, time.Minute)
	blueJob := blue.Status.JobStatus.JobID
	waitCheckpointed(t, blue.Name, blueJob)
	before := fakeJob(t, blue.Name, blueJob).Offset

	update(t, bg, func(b *flinkv1beta1.FlinkBlueGreenDeployment) { b.Spec.Template.Spec.Job.Parallelism = ptr(int32(1)) })
	waitFor(t, bg, "ACTIVE_GREEN", 2*startTimeout, activeIn(flinkv1beta1.BlueGreenActiveGreen))
	green = running(t, green, time.Minute)
	job := fakeJob(t, green.Name, green.Status.JobStatus.JobID)
	switch r := job.Restored; {
	case r == nil:
		t.Fatalf("green's job %s started from empty state", job.ID)
	case r.Path != green.Spec.Job.InitialSavepointPath || r.Kind != fakeflink.KindSavepoint || r.JobID != blueJob:
		t.Errorf("green restored %s %s of job %s; want its initialSavepointPath %q, a savepoint of blue's job %s",
			r.Kind, r.Path, r.JobID, green.Spec.Job.InitialSavepointPath, blueJob)
	case r.Offset < before || job.StartOffset != r.Offset:
		t.Errorf("green started at offset %d from a savepoint at %d; blue was at %d when the spec changed (state lost)", job.StartOffset, r.Offset, before)
	}
	waitGone(t, blue, time.Minute)
	if left := leftovers(context.Background(), blue.Name); len(left) > 0 {
		step("%s: objects still going: %v", blue.Name, left)
	}
}

// waitGone waits until obj no longer exists.
func waitGone(t *testing.T, obj client.Object, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := env.client.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)
		if apierrors.IsNotFound(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still exists after %s (error %v)", obj.GetName(), timeout, err)
		}
		time.Sleep(poll)
	}
}

// deleteBlueGreen deletes the resource and checks that the garbage collector takes both
// children and that nothing of them is left.
func deleteBlueGreen(t *testing.T, bg *flinkv1beta1.FlinkBlueGreenDeployment, children ...string) {
	t.Helper()
	if err := env.client.Delete(context.Background(), bg); client.IgnoreNotFound(err) != nil {
		t.Errorf("delete %s: %v", bg.Name, err)
		return
	}
	for _, name := range children {
		d := &flinkv1beta1.FlinkDeployment{}
		d.Name, d.Namespace = name, jobNS
		waitGone(t, d, 2*time.Minute)
		deadline := time.Now().Add(2 * time.Minute)
		left := leftovers(context.Background(), name)
		for len(left) > 0 && time.Now().Before(deadline) {
			time.Sleep(poll)
			left = leftovers(context.Background(), name)
		}
		if len(left) > 0 {
			t.Errorf("left behind after deleting %s: %v", bg.Name, left)
		}
	}
}
