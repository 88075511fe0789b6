//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// startTimeout bounds a fresh deployment's way to RUNNING: two pods start, the job starts.
const startTimeout = 3 * time.Minute

// TestSavepointNonceAndSavepointUpgrade deploys an application, takes a savepoint by nonce,
// then changes the parallelism under upgradeMode savepoint: the new job must start from the
// upgrade savepoint at exactly its offset.
func TestSavepointNonceAndSavepointUpgrade(t *testing.T) {
	d := newDeployment(t, "e2e-savepoint", "savepoint", nil)
	d = running(t, d, startTimeout)

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
	job := fakeJob(t, d.Name, d.Status.JobStatus.JobID)
	if job.Restored == nil || job.Restored.Path != upgrade.Location {
		t.Fatalf("the upgraded job (%s, was %s) restored %+v, want %s", job.ID, oldJob, job.Restored, upgrade.Location)
	}
	if job.Restored.Kind != "savepoint" || job.Restored.Offset == 0 || job.StartOffset != job.Restored.Offset {
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
