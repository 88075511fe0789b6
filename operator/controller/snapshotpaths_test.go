package controller_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/controller"
)

// completedSavepoint has the running deployment "app" take a savepoint through snapshot
// name, and returns its path.
func (s *snapEnv) completedSavepoint(name string) string {
	s.t.Helper()
	if err := s.client.Create(s.ctx, savepointSnapshot(name, "app")); err != nil {
		s.t.Fatal(err)
	}
	return s.untilSnap("app", name, 20, "completed", inSnapshotState(flinkv1beta1.SnapshotCompleted)).Status.Path
}

// reconcileSnap reconciles snapshot name n times, a second of Flink apart.
func (s *snapEnv) reconcileSnap(name string, n int) {
	s.t.Helper()
	for range n {
		_, _ = s.sr.Reconcile(s.ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}})
		s.drainEvents()
		s.advanceFlink()
	}
}

// setUpgradeSavepoint writes path as the upgrade savepoint of deployment name in namespace
// namespace, as after an upgrade from it.
func (s *snapEnv) setUpgradeSavepoint(namespace, name, path string) {
	s.t.Helper()
	var d flinkv1beta1.FlinkDeployment
	if err := s.client.Get(s.ctx, client.ObjectKey{Namespace: namespace, Name: name}, &d); err != nil {
		s.t.Fatal(err)
	}
	d.Status.JobStatus.UpgradeSavepointPath = path
	if err := s.client.Status().Update(s.ctx, &d); err != nil {
		s.t.Fatal(err)
	}
}

// kept checks that snapshot name is still there, its savepoint at path in storage, and that
// its status.error says wantError.
func (s *snapEnv) kept(name, path, wantError string) {
	s.t.Helper()
	if _, ok := s.sim.Store.Get(path); !ok {
		s.t.Fatalf("savepoint %s was disposed of", path)
	}
	sn := s.getSnap(name)
	if !strings.Contains(flinkv1beta1.ErrorMessage(sn.Status.Error), wantError) || !s.hasEvent("Warning CleanupFailed") || !controllerutilContains(sn.Finalizers, controller.SnapshotFinalizer) {
		s.t.Errorf("error %q (want %q), finalizers %v, events %v", flinkv1beta1.ErrorMessage(sn.Status.Error), wantError, sn.Finalizers, s.events)
	}
}

// A tenant's snapshot naming the savepoint another namespace's job would restore from does not
// dispose of it, and does not learn that job's name; once no job would restore from it, it
// is disposed of.
func TestSnapshotDisposalKeepsAnotherNamespacesRestorePoint(t *testing.T) {
	s := newSnapEnv(t)
	s.createRunning(deployment("app", flinkv1beta1.UpgradeModeSavepoint))
	path := s.completedSavepoint("sp")
	if err := s.client.Create(s.ctx, fixtures.StatefulDeployment("other", "twin", flinkv1beta1.UpgradeModeSavepoint)); err != nil {
		t.Fatal(err)
	}
	s.setUpgradeSavepoint("other", "twin", path)
	for range 12 { // a checkpoint after the savepoint: its own job no longer keeps it
		s.advanceFlink()
	}

	if err := s.client.Delete(s.ctx, s.getSnap("sp")); err != nil {
		t.Fatal(err)
	}
	s.reconcileSnap("sp", 3)
	s.kept("sp", path, "while a FlinkDeployment of another namespace (its upgrade or last savepoint) would restore from it")
	if sn := s.getSnap("sp"); strings.Contains(flinkv1beta1.ErrorMessage(sn.Status.Error), "twin") {
		t.Errorf("the error names the other namespace's job: %q", flinkv1beta1.ErrorMessage(sn.Status.Error))
	}

	s.setUpgradeSavepoint("other", "twin", "")
	s.reconcileSnap("sp", 3)
	if _, ok := s.sim.Store.Get(path); ok {
		t.Errorf("savepoint %s was not disposed of once no job would restore from it: %v", path, s.events)
	}
}

// A snapshot that spells the savepoint a job would restore from differently (//, /./, a
// trailing slash) does not dispose of it.
func TestSnapshotDisposalComparesCanonicalPaths(t *testing.T) {
	s := newSnapEnv(t)
	s.createRunning(deployment("app", flinkv1beta1.UpgradeModeSavepoint))
	path := s.completedSavepoint("sp")
	s.setUpgradeSavepoint(ns, "app", path)
	alias := strings.Replace(path, "file:///data/sp/", "file:///data//sp/./", 1) + "/"
	if err := s.client.Create(s.ctx, savepointSnapshot("alias", "app", func(sn *flinkv1beta1.FlinkStateSnapshot) {
		sn.Spec.Savepoint.AlreadyExists, sn.Spec.Savepoint.Path = true, alias
	})); err != nil {
		t.Fatal(err)
	}
	s.untilSnap("app", "alias", 5, "recorded", inSnapshotState(flinkv1beta1.SnapshotCompleted))

	if err := s.client.Delete(s.ctx, s.getSnap("alias")); err != nil {
		t.Fatal(err)
	}
	s.reconcileSnap("alias", 3)
	s.kept("alias", path, "while FlinkDeployment app (its upgrade or last savepoint) would restore from it")
}

// The state directories a tenant configures in its own flinkConfiguration are not the
// operator's: a savepoint there is neither recorded nor disposed of (the finalizer stays,
// nothing is lost) until the operator's kubernetes.operator.snapshot.allowed-path-prefixes
// allows it ("*": any path).
func TestSnapshotPathsStayInTheNamespacesDirectories(t *testing.T) {
	s := newSnapEnv(t)
	s.createRunning(deployment("app", flinkv1beta1.UpgradeModeSavepoint, func(d *flinkv1beta1.FlinkDeployment) {
		d.Spec.FlinkConfiguration.Set("state.savepoints.dir", "file:///elsewhere/sp")
	}))
	path := s.completedSavepoint("sp")
	if !strings.HasPrefix(path, "file:///elsewhere/sp/") {
		t.Fatalf("the savepoint is at %s, not in the job's own directory", path)
	}
	const option = "kubernetes.operator.snapshot.allowed-path-prefixes"

	if err := s.client.Create(s.ctx, savepointSnapshot("rec", "app", func(sn *flinkv1beta1.FlinkStateSnapshot) {
		sn.Spec.Savepoint.AlreadyExists, sn.Spec.Savepoint.Path = true, path
	})); err != nil {
		t.Fatal(err)
	}
	s.reconcileSnap("rec", 2)
	if rec := s.getSnap("rec"); rec.Status.State != flinkv1beta1.SnapshotTriggerPending || !strings.Contains(flinkv1beta1.ErrorMessage(rec.Status.Error), "Not recording the existing savepoint: "+path) ||
		!strings.Contains(flinkv1beta1.ErrorMessage(rec.Status.Error), option) || !s.hasEvent("Warning ValidationError") {
		t.Errorf("record: status %+v, events %v", rec.Status, s.events)
	}

	for range 12 { // a checkpoint after the savepoint: its own job no longer keeps it
		s.advanceFlink()
	}
	if err := s.client.Delete(s.ctx, s.getSnap("sp")); err != nil {
		t.Fatal(err)
	}
	s.reconcileSnap("sp", 3)
	s.kept("sp", path, "Not disposing of the savepoint: "+path+" is not below a state directory of namespace "+ns)
	s.kept("sp", path, option)

	s.sr = s.snapshotReconcilerWith(s.client.(client.WithWatch), operatorConf+option+": '*'\n")
	s.reconcileSnap("sp", 3)
	if _, ok := s.sim.Store.Get(path); ok {
		t.Errorf("savepoint %s was not disposed of with %s '*': %v", path, option, s.events)
	}
}
