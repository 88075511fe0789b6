//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/flinkop/flinkop/fakeflink"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// startTimeout bounds a fresh deployment's way to RUNNING: two pods start, the job starts.
const startTimeout = 3 * time.Minute

// TestSavepointNonceAndSavepointUpgrade deploys an application in native mode (its
// TaskManager pods made by the JobManager), takes a savepoint by nonce, then changes the
// parallelism under upgradeMode savepoint: the new job must start from the upgrade savepoint at
// exactly its offset; its deletion leaves no pod (newDeployment's cleanup).
func TestSavepointNonceAndSavepointUpgrade(t *testing.T) {
	d := newDeployment(t, "e2e-savepoint", flinkv1beta1.UpgradeModeSavepoint, nil)
	d = running(t, d, startTimeout)
	wantNativeTaskManagers(t, d.Name) // mode unset: native, as in the Apache operator

	update(t, d, func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.SavepointTriggerNonce = ptr(int64(1)) })
	d = waitFor(t, d, "savepoint by nonce recorded", time.Minute, func(d *flinkv1beta1.FlinkDeployment) bool {
		sp := lastSavepoint(d)
		return sp != nil && sp.TriggerNonce != nil && *sp.TriggerNonce == 1
	})
	if loc := lastSavepoint(d).Location; !strings.HasPrefix(loc, "file:///flink-data/savepoints/") {
		t.Errorf("nonce savepoint at %q, want under the savepoint directory", loc)
	}
	oldJob := d.Status.JobStatus.JobID

	update(t, d, func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.Parallelism = ptr(int32(1)) })
	d = running(t, d, startTimeout)
	upgrade := lastSavepoint(d)
	if upgrade == nil || upgrade.TriggerType != flinkv1beta1.SnapshotTriggerUpgrade {
		t.Fatalf("last savepoint after the upgrade: %+v, want the upgrade savepoint", upgrade)
	}
	wantNativeTaskManagers(t, d.Name)
	job := fakeJob(t, d.Name, d.Status.JobStatus.JobID)
	if job.Restored == nil || job.Restored.Path != upgrade.Location {
		t.Fatalf("the upgraded job (%s, was %s) restored %+v, want %s", job.ID, oldJob, job.Restored, upgrade.Location)
	}
	if job.Restored.Kind != fakeflink.KindSavepoint || job.Restored.Offset == 0 || job.StartOffset != job.Restored.Offset {
		t.Errorf("the upgraded job started at offset %d from a %s at %d; want exactly the savepoint's offset",
			job.StartOffset, job.Restored.Kind, job.Restored.Offset)
	}
}

func lastSavepoint(d *flinkv1beta1.FlinkDeployment) *flinkv1beta1.Savepoint {
	if d.Status.JobStatus.SavepointInfo == nil {
		return nil
	}
	return d.Status.JobStatus.SavepointInfo.LastSavepoint
}

func ptr[T any](v T) *T { return &v }

// TestLastStateUpgradeRestoresFromHA changes the parallelism under upgradeMode last-state: no
// savepoint is taken, and the job resumes from the checkpoint Kubernetes HA points at.
func TestLastStateUpgradeRestoresFromHA(t *testing.T) {
	d := running(t, newDeployment(t, "e2e-last-state", flinkv1beta1.UpgradeModeLastState, nil), startTimeout)
	jobID := d.Status.JobStatus.JobID
	waitCheckpointed(t, d.Name, jobID)

	update(t, d, func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.Parallelism = ptr(int32(1)) })
	d = running(t, d, startTimeout)
	if sp := lastSavepoint(d); sp != nil {
		t.Errorf("a last-state upgrade took savepoint %s", sp.Location)
	}
	wantRestoredCheckpoint(t, d, 0)
}

// TestLostJobManagerRecoversWithoutStateLoss deletes the JobManager pod, then the JobManager
// Deployment: each time the job must come back from its latest checkpoint.
func TestLostJobManagerRecoversWithoutStateLoss(t *testing.T) {
	d := running(t, newDeployment(t, "e2e-lost-jm", flinkv1beta1.UpgradeModeLastState, nil), startTimeout)
	jm := "deployment/" + d.Name
	for _, what := range []string{"pod", "deployment"} {
		jobID := d.Status.JobStatus.JobID
		waitCheckpointed(t, d.Name, jobID)
		before := fakeJob(t, d.Name, jobID)
		target := []string{"delete", "-n", jobNS, jm, "--wait=false"}
		if what == "pod" {
			target = []string{"delete", "-n", jobNS, "pod", "-l", "app=" + d.Name + ",component=jobmanager", "--wait=false"}
		}
		if _, err := kubectl(t.Context(), target...); err != nil {
			t.Fatal(err)
		}
		step("%s: JobManager %s deleted at offset %d", d.Name, what, before.Offset)
		waitRestarted(t, d.Name, jobID, before.StartOffset)
		d = running(t, d, startTimeout)
		// A checkpoint is taken every 2s at 100 records/s: at most ~200 records (plus the
		// time between reading the offset and the deletion) may be replayed, none lost.
		wantRestoredCheckpoint(t, d, before.Offset-400)
	}
}

// waitRestarted waits until a new JobManager runs the job again, from a later offset than the
// run that started at prevStart (the JobManager does not answer in between).
func waitRestarted(t *testing.T, name, jobID string, prevStart int64) {
	t.Helper()
	deadline := time.Now().Add(startTimeout)
	for {
		st, err := askFakeJob(name, jobID)
		if err == nil && st.StartOffset > prevStart {
			step("%s: job %s restarted at offset %d", name, jobID, st.StartOffset)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: job %s did not restart within %s (last: %+v, %v)", name, jobID, startTimeout, st, err)
		}
		time.Sleep(poll)
	}
}

// waitCheckpointed waits until the job's current run has gone long enough for two checkpoints
// (500 records past the offset it started from), so that a JobManager lost now must restore a
// checkpoint later than that start. An absolute offset would not do: after one recovery the job
// is already past it, and a second loss before the next checkpoint restores the same one.
func waitCheckpointed(t *testing.T, name, jobID string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for job := fakeJob(t, name, jobID); job.Offset < job.StartOffset+500; job = fakeJob(t, name, jobID) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: job %s made no progress in a minute", name, jobID)
		}
		time.Sleep(poll)
	}
}

// wantRestoredCheckpoint checks that the deployment's job started from a checkpoint, exactly
// at its offset, which is at least minOffset.
func wantRestoredCheckpoint(t *testing.T, d *flinkv1beta1.FlinkDeployment, minOffset int64) {
	t.Helper()
	job := fakeJob(t, d.Name, d.Status.JobStatus.JobID)
	switch r := job.Restored; {
	case r == nil:
		t.Errorf("job %s started from empty state", job.ID)
	case r.Kind != fakeflink.KindCheckpoint || !strings.HasPrefix(r.Path, "file:///flink-data/checkpoints/"):
		t.Errorf("job %s restored %s %s, want a checkpoint", job.ID, r.Kind, r.Path)
	case job.StartOffset != r.Offset || r.Offset <= 0 || r.Offset < minOffset:
		t.Errorf("job %s started at offset %d from %s at %d; want that checkpoint's offset, at least %d",
			job.ID, job.StartOffset, r.Path, r.Offset, minOffset)
	}
}
