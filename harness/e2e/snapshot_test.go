//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/flinkop/flinkop/harness/fixtures"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestSnapshotResourceSavepointRestoreAndDisposal takes a savepoint with a FlinkStateSnapshot,
// starts a second deployment from it (on the same volume) at exactly its offset, then deletes
// the snapshot: the disposal waits while that deployment, or the snapshot's own job (whose
// last savepoint it became), would restore from it; once the deployment is gone and the job
// took a newer savepoint, the savepoint is disposed of and the snapshot goes.
func TestSnapshotResourceSavepointRestoreAndDisposal(t *testing.T) {
	src := running(t, newDeployment(t, "e2e-snap", flinkv1beta1.UpgradeModeSavepoint, nil), startTimeout)
	waitCheckpointed(t, src.Name, src.Status.JobStatus.JobID)

	sn := fixtures.Savepoint(jobNS, "e2e-snap-savepoint", src.Name)
	create(t, sn)
	t.Cleanup(func() { // before the deployments' cleanups: its job still runs
		_ = env.client.Delete(context.Background(), sn)
	})
	// The state label follows status.state in a second write of the same reconcile.
	sn = waitFor(t, sn, "COMPLETED", 2*time.Minute, func(s *flinkv1beta1.FlinkStateSnapshot) bool {
		return s.Status.State == flinkv1beta1.SnapshotCompleted && s.Labels["snapshot.state"] == "COMPLETED"
	})
	path := sn.Status.Path
	if !strings.HasPrefix(path, "file:///flink-data/savepoints/") || sn.Labels["snapshot.state"] != "COMPLETED" {
		t.Fatalf("completed at %q with labels %v; want a savepoint in the job's directory", path, sn.Labels)
	}

	dst := newDeployment(t, "e2e-snap-restore", flinkv1beta1.UpgradeModeSavepoint, func(d *flinkv1beta1.FlinkDeployment) {
		d.Spec.Job.InitialSavepointPath = path
		d.Spec.PodTemplate.Spec.Volumes[0].HostPath.Path = "/tmp/flinkop-e2e/" + src.Name // the savepoint's volume
	})
	dst = running(t, dst, startTimeout)
	job := fakeJob(t, dst.Name, dst.Status.JobStatus.JobID)
	if job.Restored == nil || job.Restored.Path != path || job.Restored.Offset == 0 || job.StartOffset != job.Restored.Offset {
		t.Fatalf("the new deployment's job started at %d from %+v; want exactly the snapshot's savepoint %s", job.StartOffset, job.Restored, path)
	}

	if err := env.client.Delete(context.Background(), sn); err != nil {
		t.Fatal(err)
	}
	waitFor(t, sn, "held while a job would restore from it", time.Minute, func(s *flinkv1beta1.FlinkStateSnapshot) bool {
		return strings.Contains(s.Status.Error, "would restore from it")
	})
	deleteAndCheckNothingLeft(t, dst)
	// The snapshot's savepoint is also its own job's last savepoint (a savepoint a snapshot
	// takes becomes the job's restore point): a newer savepoint of that job releases it.
	waitFor(t, sn, "held while its own job would restore from it", time.Minute, func(s *flinkv1beta1.FlinkStateSnapshot) bool {
		return strings.Contains(s.Status.Error, "FlinkDeployment "+src.Name+" ")
	})
	update(t, src, func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.SavepointTriggerNonce = ptr(int64(1)) })
	deadline := time.Now().Add(2 * time.Minute)
	for exists(t, &flinkv1beta1.FlinkStateSnapshot{}, sn.Name) {
		if time.Now().After(deadline) {
			t.Fatalf("the snapshot is still there 2 minutes after its job took a newer savepoint and the deployment restoring from it went:\n%s", statusYAML(sn))
		}
		time.Sleep(poll)
	}
	if failure := disposeAgain(t, src.Name, path); !strings.Contains(failure, "Cannot find") {
		t.Errorf("disposing of %s again: %q, want that it is gone", path, failure)
	}
}

// disposeAgain asks the deployment's JobManager to dispose of path and returns the failure
// Flink reports ("" when the disposal succeeded).
func disposeAgain(t *testing.T, name, path string) string {
	t.Helper()
	ctx := context.Background()
	proxy := env.clientset.CoreV1().RESTClient()
	body, _ := json.Marshal(map[string]string{"savepoint-path": path})
	raw, err := proxy.Post().Namespace(jobNS).Resource("services").Name(act.RESTServiceName(name)+":rest").
		SubResource("proxy").Suffix("savepoint-disposal").Body(body).SetHeader("Content-Type", "application/json").DoRaw(ctx)
	if err != nil {
		t.Fatalf("POST /savepoint-disposal: %v", err)
	}
	var trigger struct {
		RequestID string `json:"request-id"`
	}
	if err := json.Unmarshal(raw, &trigger); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		raw, err := proxy.Get().Namespace(jobNS).Resource("services").Name(act.RESTServiceName(name)+":rest").
			SubResource("proxy").Suffix("savepoint-disposal", trigger.RequestID).DoRaw(ctx)
		if err != nil {
			t.Fatalf("GET /savepoint-disposal/%s: %v", trigger.RequestID, err)
		}
		var st struct {
			Status struct {
				ID string `json:"id"`
			} `json:"status"`
			Operation *struct {
				FailureCause *struct {
					StackTrace string `json:"stack-trace"`
				} `json:"failure-cause"`
			} `json:"operation"`
		}
		if err := json.Unmarshal(raw, &st); err != nil {
			t.Fatalf("decode %s: %v", raw, err)
		}
		if st.Status.ID == "COMPLETED" {
			if st.Operation != nil && st.Operation.FailureCause != nil {
				return st.Operation.FailureCause.StackTrace
			}
			return ""
		}
		if time.Now().After(deadline) {
			t.Fatalf("the disposal of %s did not complete in a minute", path)
		}
		time.Sleep(poll)
	}
}
