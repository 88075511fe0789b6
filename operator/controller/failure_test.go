package controller_test

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/observe"
)

func TestFailedUpgradeSavepointFallsBackToNewerCheckpoint(t *testing.T) {
	e := newEnv(t)
	e.createRunning(deployment("fb", flinkv1beta1.UpgradeModeSavepoint))
	e.advance("fb", 25*time.Second)
	e.sim.Do(ns, "fb", func(c *fakeflink.Cluster) { c.FailNextSavepoints(1) })

	e.update("fb", setParallelism(4))
	d := e.until("fb", 60, "running generation 2", running(2))

	path := d.Status.JobStatus.UpgradeSavepointPath
	if !strings.Contains(path, "/chk-") {
		t.Fatalf("restored from %q, want the newest checkpoint", path)
	}
	snap, _ := e.sim.Store.Get(path)
	if start := e.lastStart("fb"); start.RestorePath != path || start.Offset != snap.Offset || snap.Offset == 0 {
		t.Errorf("started from %q at %d, want %q at %d", start.RestorePath, start.Offset, path, snap.Offset)
	}
	for _, want := range []string{"Warning SavepointError", "CheckpointFallback"} {
		if !e.hasEvent(want) {
			t.Errorf("no %q event", want)
		}
	}
}

func TestFailedUpgradeSavepointWithoutCheckpointIsRefused(t *testing.T) {
	e := newEnv(t)
	noCheckpoints := func(d *flinkv1beta1.FlinkDeployment) {
		delete(d.Spec.FlinkConfiguration, "state.checkpoints.dir")
	}
	e.createRunning(deployment("refuse", flinkv1beta1.UpgradeModeSavepoint, noCheckpoints))
	e.advance("refuse", 15*time.Second)
	e.sim.Do(ns, "refuse", func(c *fakeflink.Cluster) { c.FailNextSavepoints(1) })

	e.update("refuse", setParallelism(4))
	e.until("refuse", 30, "refused with an error", func(d *flinkv1beta1.FlinkDeployment) bool {
		return strings.Contains(flinkv1beta1.ErrorMessage(d.Status.Error), "upgrade savepoint failed")
	})
	e.advance("refuse", 2*time.Minute)
	d := e.get("refuse")
	if got := e.jmGeneration("refuse"); got != "1" {
		t.Errorf("JobManager of generation %s, want the old cluster (1) kept running", got)
	}
	if n := len(e.cluster("refuse").Starts()); n != 1 {
		t.Errorf("%d job starts, want only the original one", n)
	}
	if d.Status.JobStatus.State != flinkv1beta1.JobStatusRunning {
		t.Errorf("job %s, want the old job still RUNNING", d.Status.JobStatus.State)
	}
	if !e.hasEvent("Warning UpgradeRefused") {
		t.Errorf("no UpgradeRefused warning: %v", e.events)
	}
}

// lastStateWithoutHA runs a last-state deployment (checkpointing, or none) whose HA metadata
// vanishes, then changes its image.
func lastStateWithoutHA(t *testing.T, checkpoints bool) *env {
	t.Helper()
	e := newEnv(t)
	e.createRunning(deployment("noha", flinkv1beta1.UpgradeModeLastState, func(d *flinkv1beta1.FlinkDeployment) {
		if !checkpoints {
			delete(d.Spec.FlinkConfiguration, "execution.checkpointing.interval")
		}
	}))
	e.advance("noha", 15*time.Second)
	// The HA metadata vanishes (a Kubernetes-level fault).
	if err := e.client.DeleteAllOf(e.ctx, &corev1.ConfigMap{}, client.InNamespace(ns),
		client.MatchingLabels{"configmap-type": "high-availability"}); err != nil {
		t.Fatal(err)
	}
	e.update("noha", func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Image = "flink:1.20.1" })
	return e
}

// TestLastStateWithoutHAMetadataCancelsAndRestoresTheCheckpoint: a last-state upgrade whose HA
// metadata vanished cancels the running job and restores its newest checkpoint, as Apache's
// operator does.
func TestLastStateWithoutHAMetadataCancelsAndRestoresTheCheckpoint(t *testing.T) {
	e := lastStateWithoutHA(t, true)
	e.until("noha", 30, "upgraded", func(d *flinkv1beta1.FlinkDeployment) bool {
		return e.jmGeneration("noha") == "2" && d.Status.JobStatus.State == flinkv1beta1.JobStatusRunning
	})
	starts := e.cluster("noha").Starts()
	if len(starts) == 0 || !strings.Contains(starts[len(starts)-1].RestorePath, "/chk-") {
		t.Errorf("job starts %+v, want the new job restored from the old job's newest checkpoint", starts)
	}
	if !e.hasEvent("Normal Suspended") {
		t.Errorf("no Suspended event: %v", e.events)
	}
}

// TestLastStateWithoutHAMetadataOrCheckpointIsRefused: a job with no checkpoint to restore is
// not cancelled: the upgrade is refused and the old job runs on.
func TestLastStateWithoutHAMetadataOrCheckpointIsRefused(t *testing.T) {
	e := lastStateWithoutHA(t, false)
	d := e.until("noha", 20, "refused", func(d *flinkv1beta1.FlinkDeployment) bool {
		return strings.Contains(flinkv1beta1.ErrorMessage(d.Status.Error), "needs HA metadata")
	})
	if got := e.jmGeneration("noha"); got != "1" {
		t.Errorf("JobManager of generation %s, want the old one untouched", got)
	}
	if n := len(e.cluster("noha").Starts()); n != 1 {
		t.Errorf("%d job starts, want nothing new started", n)
	}
	if d.Status.LifecycleState != flinkv1beta1.LifecycleUpgrading {
		t.Errorf("lifecycle %s", d.Status.LifecycleState)
	}
}

// A JobManager pod that is still shutting down after its Deployment was deleted may write HA
// metadata (its last checkpoint): deletion waits for the pod and removes what it wrote (found
// on kind, where the pod lives on for its grace period).
func TestDeletionWaitsForATerminatingJobManagerPod(t *testing.T) {
	e := newEnv(t)
	e.createRunning(deployment("slow", flinkv1beta1.UpgradeModeLastState))
	e.advance("slow", 15*time.Second)
	// The kubelet's view: a JobManager pod outlives its Deployment (the pod simulator does not
	// know it, so only this test deletes it).
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Namespace: ns, Name: "slow-terminating",
		Labels: map[string]string{act.LabelApp: "slow", act.LabelComponent: act.ComponentJobManager, act.LabelManagedBy: act.ManagedBy},
	}}
	if err := e.client.Create(e.ctx, pod); err != nil {
		t.Fatal(err)
	}
	if err := e.client.Delete(e.ctx, e.get("slow")); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		e.step("slow")
	}
	if d := e.get("slow"); len(d.Finalizers) == 0 {
		t.Fatal("the finalizer was released while a JobManager pod still ran")
	}
	// The pod writes HA metadata as it shuts down, then goes.
	late := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Namespace: ns, Name: "slow-late-config-map",
		Labels: map[string]string{act.LabelApp: "slow", act.LabelType: act.TypeNative, observe.LabelHAConfigMapType: observe.HAConfigMapType},
	}}
	if err := e.client.Create(e.ctx, late); err != nil {
		t.Fatal(err)
	}
	if err := e.client.Delete(e.ctx, pod); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		e.step("slow")
	}
	if err := e.client.Get(e.ctx, client.ObjectKey{Namespace: ns, Name: "slow"}, &flinkv1beta1.FlinkDeployment{}); !apierrors.IsNotFound(err) {
		t.Errorf("the resource is still there after its pod went: %v", err)
	}
	if err := e.client.Get(e.ctx, client.ObjectKeyFromObject(late), &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
		t.Errorf("the HA ConfigMap the terminating pod wrote was left behind: %v", err)
	}
}

func TestDeleteCleansEverything(t *testing.T) {
	e := newEnv(t)
	e.createRunning(deployment("gone", flinkv1beta1.UpgradeModeLastState))
	e.advance("gone", 15*time.Second)
	if err := e.client.Delete(e.ctx, e.get("gone")); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 30; i++ {
		e.step("gone")
		var d flinkv1beta1.FlinkDeployment
		if err := e.client.Get(e.ctx, client.ObjectKey{Namespace: ns, Name: "gone"}, &d); apierrors.IsNotFound(err) {
			break
		}
	}
	var deps appsv1.DeploymentList
	var svcs corev1.ServiceList
	var cms corev1.ConfigMapList
	_ = e.client.List(e.ctx, &deps, client.InNamespace(ns))
	_ = e.client.List(e.ctx, &svcs, client.InNamespace(ns))
	_ = e.client.List(e.ctx, &cms, client.InNamespace(ns))
	if len(deps.Items)+len(svcs.Items)+len(cms.Items) != 0 {
		t.Errorf("left behind: %d deployments, %d services, %d configmaps", len(deps.Items), len(svcs.Items), len(cms.Items))
	}
	var d flinkv1beta1.FlinkDeployment
	if err := e.client.Get(e.ctx, client.ObjectKey{Namespace: ns, Name: "gone"}, &d); !apierrors.IsNotFound(err) {
		t.Errorf("resource still there: %v (finalizers %v)", err, d.Finalizers)
	}
	if !e.hasEvent("Cleanup") {
		t.Error("no Cleanup events")
	}
}

func TestCrashLoopingJobManagerIsAnError(t *testing.T) {
	e := newEnv(t)
	e.create(deployment("crash", flinkv1beta1.UpgradeModeStateless, func(d *flinkv1beta1.FlinkDeployment) {
		d.Spec.Image = "example.com/flink:crashloop"
	}))
	d := e.until("crash", 20, "ERROR", func(d *flinkv1beta1.FlinkDeployment) bool {
		return d.Status.JobManagerDeploymentStatus == flinkv1beta1.JobManagerError
	})
	if !strings.Contains(flinkv1beta1.ErrorMessage(d.Status.Error), "CrashLoopBackOff") {
		t.Errorf("status.error %q does not name the reason", flinkv1beta1.ErrorMessage(d.Status.Error))
	}
	if !e.hasEvent("Warning CrashLoopBackOff") {
		t.Errorf("no Warning event: %v", e.events)
	}
	if d.Status.LifecycleState != flinkv1beta1.LifecycleFailed {
		t.Errorf("lifecycle %s, want FAILED", d.Status.LifecycleState)
	}
}

func TestInvalidSpecKeepsTheLastValidRunning(t *testing.T) {
	e := newEnv(t)
	e.createRunning(deployment("valid", flinkv1beta1.UpgradeModeSavepoint))
	e.update("valid", func(d *flinkv1beta1.FlinkDeployment) {
		d.Spec.Job.UpgradeMode = flinkv1beta1.UpgradeModeLastState // without HA: invalid
		d.Spec.Image = "flink:2.0"
	})
	e.until("valid", 10, "reporting the validation error", func(d *flinkv1beta1.FlinkDeployment) bool {
		return strings.Contains(flinkv1beta1.ErrorMessage(d.Status.Error), "last-state needs high availability")
	})
	e.advance("valid", time.Minute)
	d := e.get("valid")
	if got := e.jmGeneration("valid"); got != "1" || d.Status.JobStatus.State != flinkv1beta1.JobStatusRunning {
		t.Errorf("JobManager generation %s, job %s; want the valid spec (1) still running", got, d.Status.JobStatus.State)
	}
	if !e.hasEvent("Warning ValidationError") {
		t.Error("no ValidationError event")
	}
	if d.Status.ObservedGeneration != 2 {
		t.Errorf("observedGeneration %d, want 2 (the invalid generation was looked at)", d.Status.ObservedGeneration)
	}
}

func TestSavepointNonce(t *testing.T) {
	e := newEnv(t)
	e.createRunning(deployment("nonce", flinkv1beta1.UpgradeModeSavepoint))
	e.advance("nonce", 12*time.Second)
	n := int64(7)
	e.update("nonce", func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.SavepointTriggerNonce = &n })
	d := e.until("nonce", 20, "savepoint recorded", func(d *flinkv1beta1.FlinkDeployment) bool {
		sp := d.Status.JobStatus.SavepointInfo
		return sp != nil && sp.LastSavepoint != nil && sp.TriggerID == ""
	})
	last := d.Status.JobStatus.SavepointInfo.LastSavepoint
	if last.TriggerType != flinkv1beta1.SnapshotTriggerManual || last.TriggerNonce == nil || *last.TriggerNonce != 7 {
		t.Errorf("lastSavepoint %+v, want MANUAL with nonce 7", last)
	}
	if _, ok := e.sim.Store.Get(last.Location); !ok {
		t.Errorf("savepoint %s not in the store", last.Location)
	}
	if len(d.Status.JobStatus.SavepointInfo.SavepointHistory) != 1 {
		t.Errorf("history %v", d.Status.JobStatus.SavepointInfo.SavepointHistory)
	}
	if got := e.jmGeneration("nonce"); got != "1" {
		t.Errorf("a nonce change redeployed the cluster (generation %s)", got)
	}

	// A failing savepoint is reported and its nonce is not retried.
	e.sim.Do(ns, "nonce", func(c *fakeflink.Cluster) { c.FailNextSavepoints(5) })
	n2 := int64(8)
	e.update("nonce", func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.SavepointTriggerNonce = &n2 })
	e.advance("nonce", time.Minute)
	if !e.hasEvent("Warning SavepointError") {
		t.Error("no SavepointError event")
	}
	triggered := 0
	for _, ev := range e.events {
		if strings.Contains(ev, "Triggering a savepoint for nonce 8") {
			triggered++
		}
	}
	if triggered != 1 {
		t.Errorf("nonce 8 triggered %d times, want once", triggered)
	}
	_ = act.ManagedBy
}
