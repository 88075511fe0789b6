package controller_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/flinkop/flinkop/harness"
	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/controller"
	"github.com/flinkop/flinkop/operator/snapshot"
)

// snapEnv is env with the snapshot reconciler.
type snapEnv struct {
	*env
	sr *controller.FlinkStateSnapshotReconciler
}

func newSnapEnv(t *testing.T) *snapEnv {
	t.Helper()
	e := newEnv(t)
	s := &snapEnv{env: e}
	s.sr = s.snapshotReconciler(e.client.(client.WithWatch))
	return s
}

// operatorConf is the operator's configuration in the snapshot tests: env's intervals and
// client timeout, and the fixtures' state directories as the operator's Flink defaults, below
// which snapshots may record and dispose of savepoints.
const operatorConf = `kubernetes.operator.reconcile.interval: 30 s
kubernetes.operator.observer.progress-check.interval: 2 s
kubernetes.operator.flink.client.timeout: 1 s
state.savepoints.dir: file:///data/sp
state.checkpoints.dir: file:///data/cp
`

// snapshotReconciler builds a snapshot reconciler on c's cache view (tests wrap c to inject
// faults), with operatorConf.
func (s *snapEnv) snapshotReconciler(c client.WithWatch) *controller.FlinkStateSnapshotReconciler {
	return s.snapshotReconcilerWith(c, operatorConf)
}

// snapshotReconcilerWith is snapshotReconciler with the operator's configuration conf.
func (s *snapEnv) snapshotReconcilerWith(c client.WithWatch, conf string) *controller.FlinkStateSnapshotReconciler {
	s.t.Helper()
	live, err := config.NewLive([]byte(conf))
	if err != nil {
		s.t.Fatal(err)
	}
	return controller.Setup{Live: live, Transport: s.sim, Clock: s.clock}.SnapshotReconciler(harness.CacheView(c), s.rec)
}

// savepointSnapshot is a manual savepoint snapshot of deployment dep, changed by mods.
func savepointSnapshot(name, dep string, mods ...func(*flinkv1beta1.FlinkStateSnapshot)) *flinkv1beta1.FlinkStateSnapshot {
	sn := fixtures.Savepoint(ns, name, dep)
	sn.UID = types.UID("uid-" + name)
	for _, m := range mods {
		m(sn)
	}
	return sn
}

func (s *snapEnv) getSnap(name string) *flinkv1beta1.FlinkStateSnapshot {
	s.t.Helper()
	var sn flinkv1beta1.FlinkStateSnapshot
	if err := s.client.Get(s.ctx, client.ObjectKey{Namespace: ns, Name: name}, &sn); err != nil {
		s.t.Fatal(err)
	}
	return &sn
}

// stepSnap reconciles the deployment and the snapshot once and lets a second of Flink pass.
func (s *snapEnv) stepSnap(dep, name string) error {
	s.t.Helper()
	_, _ = s.r.Reconcile(s.ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: dep}})
	_, err := s.sr.Reconcile(s.ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}})
	s.drainEvents()
	if serr := s.sim.Sync(s.ctx); serr != nil {
		s.t.Fatalf("pod simulator: %v", serr)
	}
	s.advanceFlink()
	return err
}

func (s *snapEnv) advanceFlink() {
	s.clock.Step(time.Second)
	s.sim.Tick()
}

// untilSnap steps until cond holds for the snapshot, failing after max steps.
func (s *snapEnv) untilSnap(dep, name string, max int, what string, cond func(*flinkv1beta1.FlinkStateSnapshot) bool) *flinkv1beta1.FlinkStateSnapshot {
	s.t.Helper()
	for range max {
		if err := s.stepSnap(dep, name); err != nil {
			s.t.Logf("reconcile %s: %v", name, err)
		}
		if sn := s.getSnap(name); cond(sn) {
			return sn
		}
	}
	s.t.Fatalf("after %d steps: not %s\nstatus: %+v\nevents:\n  %s", max, what, s.getSnap(name).Status, strings.Join(s.events, "\n  "))
	return nil
}

func inSnapshotState(state flinkv1beta1.SnapshotState) func(*flinkv1beta1.FlinkStateSnapshot) bool {
	return func(sn *flinkv1beta1.FlinkStateSnapshot) bool { return sn.Status.State == state }
}

func TestSnapshotTakesASavepointOfTheRunningJob(t *testing.T) {
	s := newSnapEnv(t)
	s.createRunning(deployment("app", flinkv1beta1.UpgradeModeSavepoint))
	if err := s.client.Create(s.ctx, savepointSnapshot("sp", "app")); err != nil {
		t.Fatal(err)
	}
	sn := s.untilSnap("app", "sp", 20, "completed", inSnapshotState(flinkv1beta1.SnapshotCompleted))

	stored, ok := s.sim.Store.Get(sn.Status.Path)
	if !ok || sn.Status.Path == "" || !strings.HasPrefix(sn.Status.Path, "file:///data/sp") {
		t.Fatalf("status.path %q: not a savepoint in the job's savepoint directory (stored: %v)", sn.Status.Path, ok)
	}
	if stored.JobID != s.get("app").Status.JobStatus.JobID {
		t.Errorf("the savepoint is of job %s, want the deployment's %s", stored.JobID, s.get("app").Status.JobStatus.JobID)
	}
	want := map[string]string{
		snapshot.LabelType: "SAVEPOINT", snapshot.LabelTriggerType: "MANUAL", snapshot.LabelState: "COMPLETED",
		snapshot.LabelJobKind: "FlinkDeployment", snapshot.LabelJobName: "app",
	}
	for k, v := range want {
		if sn.Labels[k] != v {
			t.Errorf("label %s=%q, want %q (labels %v)", k, sn.Labels[k], v, sn.Labels)
		}
	}
	if sn.Status.TriggerID == "" || sn.Status.TriggerTimestamp == "" || sn.Status.ResultTimestamp == "" || sn.Status.Failures != 0 {
		t.Errorf("status %+v", sn.Status)
	}
	if !controllerutilContains(sn.Finalizers, controller.SnapshotFinalizer) {
		t.Errorf("finalizers %v", sn.Finalizers)
	}
	if n := len(s.sim.Store.List("file:///data/sp")); n != 1 {
		t.Errorf("%d savepoints in the store, want 1", n)
	}
}

// A trigger whose status write is lost is taken again under the same trigger id: Flink sees
// one savepoint, never two.
func TestSnapshotTriggerWithALostStatusWriteIsNotTakenTwice(t *testing.T) {
	s := newSnapEnv(t)
	s.createRunning(deployment("app", flinkv1beta1.UpgradeModeSavepoint))
	lost := 0
	s.sr = s.snapshotReconciler(interceptor.NewClient(s.client.(client.WithWatch), interceptor.Funcs{
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			if sn, ok := obj.(*flinkv1beta1.FlinkStateSnapshot); ok && sn.Status.State == flinkv1beta1.SnapshotInProgress && lost < 2 {
				lost++
				return errors.New("the API server timed out")
			}
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
	}))
	if err := s.client.Create(s.ctx, savepointSnapshot("sp", "app")); err != nil {
		t.Fatal(err)
	}
	s.untilSnap("app", "sp", 20, "completed", inSnapshotState(flinkv1beta1.SnapshotCompleted))
	if lost != 2 {
		t.Fatalf("%d status writes lost, want 2", lost)
	}
	if n := len(s.sim.Store.List("file:///data/sp")); n != 1 {
		t.Errorf("%d savepoints taken, want 1", n)
	}
}

func TestSnapshotTakesACheckpointWithItsPath(t *testing.T) {
	s := newSnapEnv(t)
	s.createRunning(deployment("app", flinkv1beta1.UpgradeModeSavepoint))
	cp := savepointSnapshot("cp", "app", func(sn *flinkv1beta1.FlinkStateSnapshot) {
		sn.Spec.Savepoint, sn.Spec.Checkpoint = nil, &flinkv1beta1.CheckpointSpec{}
	})
	if err := s.client.Create(s.ctx, cp); err != nil {
		t.Fatal(err)
	}
	sn := s.untilSnap("app", "cp", 20, "completed", inSnapshotState(flinkv1beta1.SnapshotCompleted))
	if _, ok := s.sim.Store.Get(sn.Status.Path); !ok || !strings.HasPrefix(sn.Status.Path, "file:///data/cp") {
		t.Errorf("status.path %q is not a checkpoint in the store", sn.Status.Path)
	}
	if sn.Labels[snapshot.LabelType] != "CHECKPOINT" {
		t.Errorf("labels %v", sn.Labels)
	}
}

func TestSnapshotOfAJobThatDoesNotRunIsAbandoned(t *testing.T) {
	s := newSnapEnv(t)
	s.createRunning(deployment("app", flinkv1beta1.UpgradeModeSavepoint))
	s.update("app", func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.State = flinkv1beta1.JobStateSuspended })
	s.until("app", 30, "suspended", func(d *flinkv1beta1.FlinkDeployment) bool {
		return d.Status.JobStatus.State == flinkv1beta1.JobStatusSuspended
	})
	if err := s.client.Create(s.ctx, savepointSnapshot("sp", "app")); err != nil {
		t.Fatal(err)
	}
	sn := s.untilSnap("app", "sp", 5, "abandoned", inSnapshotState(flinkv1beta1.SnapshotAbandoned))
	if !strings.Contains(flinkv1beta1.ErrorMessage(sn.Status.Error), "is not running") || !s.hasEvent("Warning SnapshotAbandoned") {
		t.Errorf("error %q, events %v", flinkv1beta1.ErrorMessage(sn.Status.Error), s.events)
	}
}

// Deleting a completed savepoint snapshot disposes of its savepoint, but not while a job
// would restore from it: a deployment's upgrade savepoint, or the job's newest state.
func TestSnapshotDeletionDisposesOfItsSavepoint(t *testing.T) {
	s := newSnapEnv(t)
	s.createRunning(deployment("app", flinkv1beta1.UpgradeModeSavepoint))
	if err := s.client.Create(s.ctx, savepointSnapshot("sp", "app")); err != nil {
		t.Fatal(err)
	}
	path := s.untilSnap("app", "sp", 20, "completed", inSnapshotState(flinkv1beta1.SnapshotCompleted)).Status.Path

	d := s.get("app")
	d.Status.JobStatus.UpgradeSavepointPath = path // as after an upgrade from it
	if err := s.client.Status().Update(s.ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := s.client.Delete(s.ctx, s.getSnap("sp")); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		_, _ = s.sr.Reconcile(s.ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: "sp"}})
		s.drainEvents()
		s.advanceFlink()
	}
	if _, ok := s.sim.Store.Get(path); !ok {
		t.Fatalf("the savepoint the deployment would restore from was disposed of")
	}
	if sn := s.getSnap("sp"); !strings.Contains(flinkv1beta1.ErrorMessage(sn.Status.Error), "would restore from it") || !s.hasEvent("Warning CleanupFailed") {
		t.Errorf("error %q, events %v", flinkv1beta1.ErrorMessage(sn.Status.Error), s.events)
	}

	d = s.get("app")
	d.Status.JobStatus.UpgradeSavepointPath = ""
	if err := s.client.Status().Update(s.ctx, d); err != nil {
		t.Fatal(err)
	}
	// Until a checkpoint completes after it, the savepoint is still the newest state of the
	// running job (a last-state restore would take it): checkpoints come every 10 s.
	for range 30 {
		_, _ = s.sr.Reconcile(s.ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: "sp"}})
		s.drainEvents()
		s.advanceFlink()
	}
	if !s.hasEvent("its job's newest savepoint, with no checkpoint since") {
		t.Errorf("the disposal did not wait for a checkpoint after the savepoint: %v", s.events)
	}
	var gone flinkv1beta1.FlinkStateSnapshot
	if err := s.client.Get(s.ctx, client.ObjectKey{Namespace: ns, Name: "sp"}, &gone); err == nil {
		t.Errorf("the snapshot is still there: %+v", gone.Status)
	}
	if _, ok := s.sim.Store.Get(path); ok {
		t.Errorf("savepoint %s was not disposed of", path)
	}
	if !s.hasEvent(corev1.EventTypeNormal + " SnapshotDisposed") {
		t.Errorf("no SnapshotDisposed event: %v", s.events)
	}
}
