//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestSuspendAndResume suspends a savepoint-mode deployment (its cluster goes away, a
// savepoint stays) and resumes it from that savepoint.
func TestSuspendAndResume(t *testing.T) {
	d := running(t, newDeployment(t, "e2e-suspend", flinkv1beta1.UpgradeModeSavepoint, nil), startTimeout)
	waitCheckpointed(t, d.Name, d.Status.JobStatus.JobID)

	update(t, d, func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.State = flinkv1beta1.JobStateSuspended })
	d = waitFor(t, d, "SUSPENDED with its JobManager gone", 2*time.Minute, func(d *flinkv1beta1.FlinkDeployment) bool {
		return d.Status.LifecycleState == flinkv1beta1.LifecycleSuspended && d.Status.JobStatus.State == flinkv1beta1.JobStatusSuspended &&
			!exists(t, &appsv1.Deployment{}, act.JobManagerName(d.Name))
	})
	sp := lastSavepoint(d)
	if sp == nil || sp.Location == "" {
		t.Fatal("suspended without a savepoint")
	}

	update(t, d, func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.State = flinkv1beta1.JobStateRunning })
	d = running(t, d, startTimeout)
	job := fakeJob(t, d.Name, d.Status.JobStatus.JobID)
	if job.Restored == nil || job.Restored.Path != sp.Location || job.StartOffset != job.Restored.Offset || job.StartOffset == 0 {
		t.Errorf("resumed job started at %d from %+v; want exactly the suspend savepoint %s", job.StartOffset, job.Restored, sp.Location)
	}
}

// TestBadImageErrorsThenRollsBack upgrades to an image that does not exist: the deployment
// reports the pull error, and with rollback enabled returns to the last stable spec.
func TestBadImageErrorsThenRollsBack(t *testing.T) {
	d := newDeployment(t, "e2e-rollback", flinkv1beta1.UpgradeModeSavepoint, func(d *flinkv1beta1.FlinkDeployment) {
		d.Spec.FlinkConfiguration.Set("kubernetes.operator.deployment.rollback.enabled", "true")
		d.Spec.FlinkConfiguration.Set("kubernetes.operator.deployment.readiness.timeout", "30s")
	})
	d = running(t, d, startTimeout)

	update(t, d, func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Image = "flinkop/fakeflink:does-not-exist" })
	d = waitFor(t, d, "ERROR for the image", 2*time.Minute, func(d *flinkv1beta1.FlinkDeployment) bool {
		return d.Status.JobManagerDeploymentStatus == flinkv1beta1.JobManagerError &&
			(strings.Contains(flinkv1beta1.ErrorMessage(d.Status.Error), "ErrImagePull") || strings.Contains(flinkv1beta1.ErrorMessage(d.Status.Error), "ImagePullBackOff"))
	})
	step("%s: error reported: %s", d.Name, flinkv1beta1.ErrorMessage(d.Status.Error))

	d = waitFor(t, d, "ROLLED_BACK and RUNNING", 3*time.Minute, func(d *flinkv1beta1.FlinkDeployment) bool {
		return d.Status.LifecycleState == flinkv1beta1.LifecycleRolledBack && d.Status.JobStatus.State == flinkv1beta1.JobStatusRunning &&
			d.Status.JobManagerDeploymentStatus == flinkv1beta1.JobManagerReady
	})
	var jm appsv1.Deployment
	if err := env.client.Get(context.Background(), client.ObjectKey{Namespace: jobNS, Name: act.JobManagerName(d.Name)}, &jm); err != nil {
		t.Fatal(err)
	}
	if img := jm.Spec.Template.Spec.Containers[0].Image; img != fakeflinkImage {
		t.Errorf("rolled back JobManager runs %s, want %s", img, fakeflinkImage)
	}
}

// sessionYAML is a session cluster on the fakeflink image whose image holds the example jar,
// and a FlinkSessionJob running that jar (local://).
const sessionYAML = `
apiVersion: flink.apache.org/v1beta1
kind: FlinkSessionJob
metadata:
  name: %[1]s-job
  namespace: default
spec:
  deploymentName: %[1]s
  job:
    jarURI: local:///opt/flink/examples/streaming/StateMachineExample.jar
    parallelism: 1
    upgradeMode: savepoint
`

// TestSessionClusterAndSessionJob runs a FlinkSessionJob on a session cluster, upgrades it
// with a savepoint, and deletes it before its cluster.
func TestSessionClusterAndSessionJob(t *testing.T) {
	name := "e2e-session"
	d := newDeployment(t, name, flinkv1beta1.UpgradeModeSavepoint, func(d *flinkv1beta1.FlinkDeployment) {
		d.Spec.Job = nil
		d.Spec.TaskManager.Replicas = ptr(int32(1))
		d.Spec.FlinkConfiguration.Set("fakeflink.session.jars", "StateMachineExample.jar")
	})
	waitFor(t, d, "a READY session cluster", startTimeout, func(d *flinkv1beta1.FlinkDeployment) bool {
		return d.Status.JobManagerDeploymentStatus == flinkv1beta1.JobManagerReady && d.Status.LifecycleState == flinkv1beta1.LifecycleStable
	})

	sj := &flinkv1beta1.FlinkSessionJob{}
	if err := yaml.UnmarshalStrict(fmt.Appendf(nil, sessionYAML, name), sj); err != nil {
		t.Fatal(err)
	}
	create(t, sj)
	t.Cleanup(func() { deleteSessionJob(t, sj) }) // runs before the cluster's cleanup
	sj = waitFor(t, sj, "RUNNING", 2*time.Minute, sessionJobRunning)
	first := sj.Status.JobStatus.JobID
	waitCheckpointed(t, name, first)

	update(t, sj, func(sj *flinkv1beta1.FlinkSessionJob) { sj.Spec.Job.Parallelism = ptr(int32(2)) })
	sj = waitFor(t, sj, "RUNNING after the upgrade", 2*time.Minute, sessionJobRunning)
	sp := sj.Status.JobStatus.SavepointInfo
	if sj.Status.JobStatus.JobID == first || sp == nil || sp.LastSavepoint == nil {
		t.Fatalf("after the upgrade: job %s (was %s), savepoints %+v", sj.Status.JobStatus.JobID, first, sp)
	}
	job := fakeJob(t, name, sj.Status.JobStatus.JobID)
	if job.Restored == nil || job.Restored.Path != sp.LastSavepoint.Location || job.StartOffset != job.Restored.Offset {
		t.Errorf("upgraded session job started at %d from %+v; want exactly %s", job.StartOffset, job.Restored, sp.LastSavepoint.Location)
	}
}

func sessionJobRunning(sj *flinkv1beta1.FlinkSessionJob) bool {
	s := sj.Status
	return s.ObservedGeneration == sj.Generation && s.JobStatus.State == flinkv1beta1.JobStatusRunning && s.LifecycleState == flinkv1beta1.LifecycleStable
}

// deleteSessionJob deletes a session job and waits until it is gone.
func deleteSessionJob(t *testing.T, sj *flinkv1beta1.FlinkSessionJob) {
	t.Helper()
	if err := env.client.Delete(context.Background(), sj); client.IgnoreNotFound(err) != nil {
		t.Errorf("delete %s: %v", sj.Name, err)
		return
	}
	deadline := time.Now().Add(2 * time.Minute)
	for exists(t, &flinkv1beta1.FlinkSessionJob{}, sj.Name) {
		if time.Now().After(deadline) {
			t.Errorf("%s still exists 2 minutes after its deletion", sj.Name)
			return
		}
		time.Sleep(poll)
	}
}

// exists reports whether the named object of obj's kind is in the job namespace.
func exists(t *testing.T, obj client.Object, name string) bool {
	t.Helper()
	err := env.client.Get(context.Background(), client.ObjectKey{Namespace: jobNS, Name: name}, obj)
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}
