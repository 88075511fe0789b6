package controller_test

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	appsv1 "k8s.io/api/apps/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/metrics"
)

func conf(kv ...string) func(*flinkv1beta1.FlinkDeployment) {
	return func(d *flinkv1beta1.FlinkDeployment) {
		for i := 0; i+1 < len(kv); i += 2 {
			d.Spec.FlinkConfiguration.Set(kv[i], kv[i+1])
		}
	}
}

// deleteJobManagerDeployment deletes the JobManager Deployment as kubectl would; its pod dies.
func (e *env) deleteJobManagerDeployment(name string) {
	e.t.Helper()
	dep := &appsv1.Deployment{}
	dep.Namespace, dep.Name = ns, act.JobManagerName(name)
	if err := e.client.Delete(e.ctx, dep); err != nil {
		e.t.Fatal(err)
	}
	if err := e.sim.Sync(e.ctx); err != nil {
		e.t.Fatal(err)
	}
}

func TestRollbackAfterBadImageRecoversFromHA(t *testing.T) {
	e := newEnv(t)
	e.createRunning(deployment("rb", flinkv1beta1.UpgradeModeLastState,
		conf("kubernetes.operator.deployment.rollback.enabled", "true", "kubernetes.operator.deployment.readiness.timeout", "1m")))
	e.advance("rb", 35*time.Second)
	before := e.lastStart("rb")

	e.update("rb", func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Image = "flink:missing-tag" })
	d := e.until("rb", 80, "rolled back and running", func(d *flinkv1beta1.FlinkDeployment) bool {
		return d.Status.LifecycleState == flinkv1beta1.LifecycleRolledBack && d.Status.JobStatus.State == flinkv1beta1.JobStatusRunning
	})
	if !e.hasEvent("Warning Rollback") {
		t.Errorf("no Rollback warning: %v", e.events)
	}
	if got := e.jmGeneration("rb"); got != "1" {
		t.Errorf("JobManager of generation %s, want the stable generation 1", got)
	}
	start := e.lastStart("rb")
	if start.JobID != before.JobID || !strings.Contains(start.RestorePath, "/chk-") || start.Offset < 3000 {
		t.Errorf("rolled back job started %+v; want job %s recovered from HA at a checkpoint of offset ≥ 3000", start, before.JobID)
	}
	if !strings.Contains(d.Status.ReconciliationStatus.LastReconciledSpec, "flink:missing-tag") {
		t.Error("lastReconciledSpec must keep the spec that failed, so it is not retried")
	}
	// Rolled back stays put, with no further writes, until the spec changes.
	rv := e.get("rb").ResourceVersion
	e.advance("rb", 2*time.Minute)
	if got := e.get("rb"); got.ResourceVersion != rv || got.Status.LifecycleState != flinkv1beta1.LifecycleRolledBack {
		t.Errorf("rolled back resource changed: %s → %s, lifecycle %s", rv, got.ResourceVersion, got.Status.LifecycleState)
	}
	e.update("rb", func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Image = "flink:1.20.1" })
	e.until("rb", 40, "running the fixed spec", running(3))
}

func TestRollbackDisabledLeavesTheFailingSpec(t *testing.T) {
	e := newEnv(t)
	e.createRunning(deployment("norb", flinkv1beta1.UpgradeModeLastState, conf("kubernetes.operator.deployment.readiness.timeout", "1m")))
	e.update("norb", func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Image = "flink:missing-tag" })
	e.advance("norb", 3*time.Minute)
	d := e.get("norb")
	if d.Status.ReconciliationStatus.State != flinkv1beta1.ReconciliationDeployed || e.jmGeneration("norb") != "2" || e.hasEvent("Rollback") {
		t.Errorf("state %s, JobManager generation %s: without rollback.enabled the failing spec stays", d.Status.ReconciliationStatus.State, e.jmGeneration("norb"))
	}
	if !strings.Contains(flinkv1beta1.ErrorMessage(d.Status.Error), "ImagePullBackOff") {
		t.Errorf("status.error %q, want the pull failure", flinkv1beta1.ErrorMessage(d.Status.Error))
	}
}

func TestJobManagerDeploymentRecoveredWithState(t *testing.T) {
	e := newEnv(t)
	e.createRunning(deployment("jmr", flinkv1beta1.UpgradeModeLastState))
	e.advance("jmr", 35*time.Second)
	e.deleteJobManagerDeployment("jmr")

	e.until("jmr", 30, "running again", running(1))
	if !e.hasEvent("RecoverDeployment") {
		t.Errorf("no RecoverDeployment event: %v", e.events)
	}
	e.wantCheckpointRestore("jmr", 3000, "the recovered job")
}

func TestJobManagerDeploymentNotRecoveredWithoutHA(t *testing.T) {
	e := newEnv(t)
	e.createRunning(deployment("nojmr", flinkv1beta1.UpgradeModeSavepoint))
	e.deleteJobManagerDeployment("nojmr")
	d := e.until("nojmr", 20, "refused", func(d *flinkv1beta1.FlinkDeployment) bool { return flinkv1beta1.ErrorMessage(d.Status.Error) != "" })
	if !strings.Contains(flinkv1beta1.ErrorMessage(d.Status.Error), "high availability is not enabled") || !e.hasEvent("Warning JobManagerDeploymentMissing") {
		t.Errorf("status.error %q, events %v", flinkv1beta1.ErrorMessage(d.Status.Error), e.events)
	}
	e.advance("nojmr", time.Minute)
	if got := e.jmGeneration("nojmr"); got != "missing" {
		t.Errorf("JobManager Deployment %s was recreated without HA", got)
	}
}

func TestFailedJobRestartedFromItsCheckpoint(t *testing.T) {
	e := newEnv(t)
	e.createRunning(deployment("rs", flinkv1beta1.UpgradeModeLastState,
		conf("kubernetes.operator.job.restart.failed", "true", "restart-strategy.type", "none")))
	e.advance("rs", 35*time.Second)
	first := e.lastStart("rs")
	e.sim.Do(ns, "rs", func(c *fakeflink.Cluster) {
		if err := c.FailJob(first.JobID, "java.lang.RuntimeException: boom"); err != nil {
			t.Fatal(err)
		}
	})
	e.until("rs", 40, "running a new run", func(d *flinkv1beta1.FlinkDeployment) bool {
		return d.Status.JobStatus.State == flinkv1beta1.JobStatusRunning && d.Status.JobStatus.JobID != first.JobID
	})
	if !e.hasEvent("Warning RestartFailedJob") {
		t.Errorf("no RestartFailedJob warning: %v", e.events)
	}
	e.wantCheckpointRestore("rs", 3000, "the restarted job")
}

// wantCheckpointRestore fails unless the resource's newest job start restored a checkpoint at
// offset min or later.
func (e *env) wantCheckpointRestore(name string, min int64, what string) {
	e.t.Helper()
	start := e.lastStart(name)
	if !strings.Contains(start.RestorePath, "/chk-") || start.Offset < min {
		e.t.Errorf("%s started %+v, want it restored from a checkpoint at offset ≥ %d", what, start, min)
	}
}

func TestSessionClusterLifecycleAndDeletionWaitsForSessionJobs(t *testing.T) {
	e := newEnv(t)
	e.create(deployment("sess", flinkv1beta1.UpgradeModeStateless, func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job = nil }))
	e.until("sess", 20, "a ready session cluster", func(d *flinkv1beta1.FlinkDeployment) bool {
		return d.Status.LifecycleState == flinkv1beta1.LifecycleStable && d.Status.JobManagerDeploymentStatus == flinkv1beta1.JobManagerReady
	})
	e.update("sess", func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Image = "flink:1.20.1" })
	e.until("sess", 30, "the upgraded session cluster ready", func(d *flinkv1beta1.FlinkDeployment) bool {
		return d.Status.LifecycleState == flinkv1beta1.LifecycleStable && d.Status.ObservedGeneration == 2 && e.jmGeneration("sess") == "2"
	})

	sj := &flinkv1beta1.FlinkSessionJob{}
	sj.Namespace, sj.Name, sj.Spec.DeploymentName = ns, "etl", "sess"
	if err := e.client.Create(e.ctx, sj); err != nil {
		t.Fatal(err)
	}
	if err := e.client.Delete(e.ctx, e.get("sess")); err != nil {
		t.Fatal(err)
	}
	e.advance("sess", 30*time.Second)
	if got := e.get("sess"); !strings.Contains(flinkv1beta1.ErrorMessage(got.Status.Error), "etl") || e.jmGeneration("sess") != "2" {
		t.Fatalf("status.error %q, JobManager %s: deletion must wait for session job etl with the cluster up", flinkv1beta1.ErrorMessage(got.Status.Error), e.jmGeneration("sess"))
	}
	if !e.hasEvent("Warning SessionJobsExist") {
		t.Errorf("no SessionJobsExist warning: %v", e.events)
	}
	if err := e.client.Delete(e.ctx, sj); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		e.step("sess")
		var d flinkv1beta1.FlinkDeployment
		if err := e.client.Get(e.ctx, client.ObjectKey{Namespace: ns, Name: "sess"}, &d); apierrors.IsNotFound(err) {
			if got := e.jmGeneration("sess"); got != "missing" {
				t.Errorf("JobManager Deployment left behind: %s", got)
			}
			return
		}
	}
	t.Fatal("the session cluster was not deleted after its session job went")
}

func TestMetricsFollowTheLifecycle(t *testing.T) {
	e := newEnv(t)
	reg := prometheus.NewRegistry()
	rec, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	e.r.Metrics = rec
	e.createRunning(deployment("m", flinkv1beta1.UpgradeModeSavepoint))
	e.update("m", func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.SavepointTriggerNonce = ptr(int64(1)) })
	e.until("m", 20, "savepoint taken", func(d *flinkv1beta1.FlinkDeployment) bool {
		return d.Status.JobStatus.SavepointInfo != nil && d.Status.JobStatus.SavepointInfo.LastSavepoint != nil
	})
	want := `
# HELP flinkop_resources FlinkDeployments per namespace and lifecycle state.
# TYPE flinkop_resources gauge
flinkop_resources{lifecycle_state="DEPLOYED",namespace="flink"} 0
flinkop_resources{lifecycle_state="STABLE",namespace="flink"} 1
flinkop_resources{lifecycle_state="UPGRADING",namespace="flink"} 0
# HELP flinkop_snapshots_total Savepoints and checkpoints the operator followed to the end, by kind and result.
# TYPE flinkop_snapshots_total counter
flinkop_snapshots_total{kind="savepoint",result="success"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), metrics.ResourcesName, metrics.SnapshotsName); err != nil {
		t.Error(err)
	}
	if err := e.client.Delete(e.ctx, e.get("m")); err != nil {
		t.Fatal(err)
	}
	e.advance("m", 20*time.Second)
	if got := testutil.ToFloat64(rec.Resources("flink", "STABLE")); got != 0 {
		t.Errorf("a deleted resource still counts: %v", got)
	}
}

func ptr[T any](v T) *T { return &v }

func TestIngressFromApacheExample(t *testing.T) {
	e := newEnv(t)
	e.createRunning(deployment("ui", flinkv1beta1.UpgradeModeSavepoint, func(d *flinkv1beta1.FlinkDeployment) {
		// spec.ingress of Apache's basic-ingress.yaml
		d.Spec.Ingress = &flinkv1beta1.IngressSpec{Template: "{{name}}.{{namespace}}.flink.k8s.io"}
	}))
	ing := e.ingress("ui")
	if ing == nil || ing.Spec.Rules[0].Host != "ui.flink.flink.k8s.io" {
		t.Fatalf("ingress %+v", ing)
	}
	// Apache's advanced-ingress.yaml: a path template with a rewrite annotation. Nothing is
	// redeployed for it.
	e.update("ui", func(d *flinkv1beta1.FlinkDeployment) {
		d.Spec.Ingress = &flinkv1beta1.IngressSpec{
			Template:    "/{{namespace}}/{{name}}(/|$)(.*)",
			Annotations: map[string]string{"nginx.ingress.kubernetes.io/rewrite-target": "/$2"},
		}
	})
	e.until("ui", 10, "ingress updated", func(*flinkv1beta1.FlinkDeployment) bool {
		ing := e.ingress("ui")
		return ing != nil && ing.Spec.Rules[0].HTTP.Paths[0].Path == "/flink/ui(/|$)(.*)"
	})
	if got := e.jmGeneration("ui"); got != "1" || len(e.cluster("ui").Starts()) != 1 {
		t.Errorf("JobManager generation %s, %d job starts: an ingress change must not redeploy", got, len(e.cluster("ui").Starts()))
	}
	e.update("ui", func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Ingress = nil })
	e.until("ui", 10, "ingress deleted", func(*flinkv1beta1.FlinkDeployment) bool { return e.ingress("ui") == nil })
}

func (e *env) ingress(name string) *networkingv1.Ingress {
	e.t.Helper()
	var ing networkingv1.Ingress
	if err := e.client.Get(e.ctx, client.ObjectKey{Namespace: ns, Name: act.IngressName(name)}, &ing); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		e.t.Fatal(err)
	}
	return &ing
}

func TestScaleInPlaceKeepsTheJobRunning(t *testing.T) {
	e := newEnv(t)
	two := int32(2)
	e.createRunning(deployment("sc", flinkv1beta1.UpgradeModeSavepoint, func(d *flinkv1beta1.FlinkDeployment) {
		d.Spec.Mode = flinkv1beta1.DeploymentModeStandalone
		d.Spec.TaskManager = &flinkv1beta1.TaskManagerSpec{Replicas: &two}
		d.Spec.FlinkConfiguration.Set("jobmanager.scheduler", "adaptive")
	}))
	e.update("sc", func(d *flinkv1beta1.FlinkDeployment) {
		three, six := int32(3), int32(6)
		d.Spec.TaskManager.Replicas, d.Spec.Job.Parallelism = &three, &six
	})
	e.until("sc", 20, "running the scaled spec", running(2))
	if !e.hasEvent("Normal Scaling") {
		t.Errorf("no Scaling event: %v", e.events)
	}
	if got := e.jmGeneration("sc"); got != "1" {
		t.Errorf("JobManager of generation %s: scaling in place must not redeploy", got)
	}
	var tm appsv1.Deployment
	if err := e.client.Get(e.ctx, client.ObjectKey{Namespace: ns, Name: act.TaskManagerName("sc")}, &tm); err != nil || *tm.Spec.Replicas != 3 {
		t.Errorf("TaskManager replicas %v (%v), want 3", tm.Spec.Replicas, err)
	}
	c := e.cluster("sc")
	if n := len(c.Starts()); n != 1 || c.Jobs()[0].Parallelism() != 6 {
		t.Errorf("%d job starts, parallelism %d; want the first job rescaled to 6", n, c.Jobs()[0].Parallelism())
	}
	// A JobManager failover re-runs the job with its rendered configuration (parallelism 2):
	// the operator rescales it to the spec again.
	e.advance("sc", 20*time.Second)
	e.sim.Do(ns, "sc", func(c *fakeflink.Cluster) {
		c.CrashJobManager()
		if err := c.StartJobManager(); err != nil {
			t.Fatal(err)
		}
	})
	e.advance("sc", 40*time.Second)
	if p := e.cluster("sc").Jobs()[0].Parallelism(); p != 6 {
		t.Errorf("parallelism %d after the failover, want the spec's 6 again", p)
	}
	if !e.hasEvent("the spec asks for 6") {
		t.Errorf("no event for the re-applied parallelism: %v", e.events)
	}
}

func TestUnhealthyJobWithoutCheckpointsIsRestarted(t *testing.T) {
	e := newEnv(t)
	e.createRunning(deployment("hc", flinkv1beta1.UpgradeModeLastState, conf(
		"kubernetes.operator.cluster.health-check.enabled", "true",
		"kubernetes.operator.cluster.health-check.checkpoint-progress.window", "1m")))
	e.advance("hc", 30*time.Second)
	first := e.lastStart("hc")
	e.sim.Do(ns, "hc", func(c *fakeflink.Cluster) { c.FailCheckpoints(true) })
	e.until("hc", 60, "restarted", func(d *flinkv1beta1.FlinkDeployment) bool {
		return d.Status.JobStatus.State == flinkv1beta1.JobStatusRunning && e.jmRun("hc") == "restart-1"
	})
	if !e.hasEvent("no checkpoint completed within 1m0s") {
		t.Errorf("the event does not say why: %v", e.events)
	}
	start := e.lastStart("hc")
	if start.JobID != first.JobID || start.Offset < 2000 {
		t.Errorf("restarted job started %+v, want job %s recovered from HA at its last completed checkpoint (offset ≥ 2000)", start, first.JobID)
	}
}

func TestPeriodicSavepointsWithHistoryDisposal(t *testing.T) {
	e := newEnv(t)
	e.createRunning(deployment("ps", flinkv1beta1.UpgradeModeSavepoint, conf(
		"kubernetes.operator.periodic.savepoint.interval", "30s", "kubernetes.operator.savepoint.history.max.count", "2")))
	e.advance("ps", 3*time.Minute)
	d := e.get("ps")
	sp := d.Status.JobStatus.SavepointInfo
	if sp == nil || len(sp.SavepointHistory) != 2 || sp.LastSavepoint == nil || sp.LastSavepoint.TriggerType != flinkv1beta1.SnapshotTriggerPeriodic {
		t.Fatalf("savepoint info %+v, want a history of 2 periodic savepoints", sp)
	}
	taken, stored := 0, len(e.sim.Store.List("file:///data/sp/"))
	for _, ev := range e.events {
		if strings.Contains(ev, "SavepointCompleted") {
			taken++
		}
	}
	if taken < 5 || stored != 2 || !e.hasEvent("SavepointDisposed") {
		t.Errorf("%d savepoints taken, %d stored; want at least 5 taken and the trimmed ones disposed", taken, stored)
	}
	for _, h := range sp.SavepointHistory {
		if _, ok := e.sim.Store.Get(h.Location); !ok {
			t.Errorf("savepoint %s in the history was disposed", h.Location)
		}
	}
}

// TestRestartLoopIsRestartedAtApacheDefaults: with only the health check turned on (threshold
// 64 restarts in 2 minutes, Apache's defaults), a job that keeps failing is restarted by the
// operator: it fails each second between two reconciles 30 s apart (each of which lets up to
// 10 s pass without failures), 30 restarts in 40 s, 90 in two minutes. Its restarts are
// counted from Flink's numRestarts, not from the exception history, which Flink bounds at 16
// entries.
func TestRestartLoopIsRestartedAtApacheDefaults(t *testing.T) {
	e := newEnv(t)
	e.createRunning(deployment("loop", flinkv1beta1.UpgradeModeLastState, conf("kubernetes.operator.cluster.health-check.enabled", "true")))
	for i := range 200 {
		e.sim.Do(ns, "loop", func(c *fakeflink.Cluster) {
			for _, j := range c.Jobs() {
				if j.Status == fakeflink.StatusRunning {
					_ = c.FailJob(j.ID, "boom")
				}
			}
		})
		e.clock.Step(time.Second)
		e.sim.Tick()
		if i%30 == 0 {
			e.step("loop")
		}
		if e.hasEvent("restart count hit threshold") {
			return
		}
	}
	t.Errorf("a restart a second and no RestartUnhealthyJob; status.clusterInfo %v", e.get("loop").Status.ClusterInfo)
}
