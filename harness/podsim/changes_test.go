package podsim

import (
	"context"
	"math/rand"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	toolscache "k8s.io/client-go/tools/cache"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/cache/informertest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/harness/fixtures"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

// changedWorld is a simulator that follows changes through fake informers, over a fake API
// holding the rendered objects of the resources it was given.
type changedWorld struct {
	ctx   context.Context
	t     *testing.T
	c     client.Client
	clock *clocktesting.FakeClock
	inf   *informertest.FakeInformers
	sim   *Sim
	objs  map[string]*act.Objects
}

func newChangedWorld(t *testing.T, names ...string) *changedWorld {
	t.Helper()
	w := &changedWorld{
		ctx: context.Background(), t: t, clock: clocktesting.NewFakeClock(time.Unix(1_700_000_000, 0)),
		inf: &informertest.FakeInformers{Scheme: scheme.Scheme}, objs: map[string]*act.Objects{},
	}
	b := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithStatusSubresource(&appsv1.Deployment{}, &corev1.Pod{})
	for _, name := range names {
		d := fixtures.StatefulDeployment("flink", name, "savepoint")
		d.UID = types.UID("uid-" + name)
		d.Spec.Mode = flinkv1beta1.DeploymentModeStandalone // a TaskManager Deployment to follow too
		objs, err := act.Render(act.Cluster{Resource: d, Spec: d.Spec, Generation: 1, JobID: decide.JobIDFor(string(d.UID), 1, "")})
		if err != nil {
			t.Fatal(err)
		}
		w.objs[name] = objs
		b = b.WithObjects(objs.ConfigMap, objs.JobManager, objs.TaskManager)
	}
	w.c = b.Build()
	w.sim = New(w.c, w.clock, rand.New(rand.NewSource(1)))
	if err := w.sim.WatchChanges(w.ctx, w.inf, time.Minute); err != nil {
		t.Fatal(err)
	}
	return w
}

// event tells the simulator's informers that obj was added.
func (w *changedWorld) event(obj client.Object) {
	w.t.Helper()
	i, err := w.inf.FakeInformerFor(w.ctx, obj)
	if err != nil {
		w.t.Fatal(err)
	}
	i.Add(obj)
}

// running lists which of names have a JobManager running.
func (w *changedWorld) running(names ...string) map[string]bool {
	out := map[string]bool{}
	for _, n := range names {
		out[n] = w.sim.Cluster("flink", n) != nil
	}
	return out
}

func (w *changedWorld) sync() error {
	w.t.Helper()
	return w.sim.Sync(w.ctx)
}

func (w *changedWorld) want(step string, want map[string]bool) {
	w.t.Helper()
	if diff := cmp.Diff(want, w.running("a", "b")); diff != "" {
		w.t.Errorf("%s: JobManagers running (-want +got):\n%s", step, diff)
	}
}

// TestSyncFollowsChanges: after WatchChanges, Sync visits the resources whose objects changed,
// stops a JobManager whose Deployment is gone and deletes its pod, and visits every resource on
// a full sync.
func TestSyncFollowsChanges(t *testing.T) {
	w := newChangedWorld(t, "a", "b")
	if err := w.sync(); err != nil {
		t.Fatal(err)
	}
	w.want("nothing changed", map[string]bool{"a": false, "b": false})

	w.event(w.objs["a"].JobManager)
	if err := w.sync(); err != nil {
		t.Fatal(err)
	}
	w.want("a's Deployment changed", map[string]bool{"a": true, "b": false})

	w.clock.Step(time.Minute)
	if err := w.sync(); err != nil {
		t.Fatal(err)
	}
	w.want("a full sync", map[string]bool{"a": true, "b": true})

	if err := w.c.Delete(w.ctx, w.objs["a"].JobManager); err != nil {
		t.Fatal(err)
	}
	i, _ := w.inf.FakeInformerFor(w.ctx, &appsv1.Deployment{})
	i.Delete(w.objs["a"].JobManager)
	if err := w.sync(); err != nil {
		t.Fatal(err)
	}
	w.want("a's JobManager Deployment deleted", map[string]bool{"a": false, "b": true})
	err := w.c.Get(w.ctx, client.ObjectKey{Namespace: "flink", Name: "a-0"}, &corev1.Pod{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("the pod of a's deleted JobManager Deployment: got %v, want it deleted", err)
	}
}

// TestSyncTriesAFailedResourceAgain: a resource whose sync failed (its ConfigMap not there
// yet) is visited again on the next Sync, with no further event.
func TestSyncTriesAFailedResourceAgain(t *testing.T) {
	w := newChangedWorld(t, "a")
	cm := w.objs["a"].ConfigMap
	if err := w.c.Delete(w.ctx, cm); err != nil {
		t.Fatal(err)
	}
	w.event(w.objs["a"].JobManager)
	if err := w.sync(); err == nil {
		t.Fatal("Sync without the flink-config ConfigMap: got no error")
	}
	cm.ResourceVersion = ""
	if err := w.c.Create(w.ctx, cm); err != nil {
		t.Fatal(err)
	}
	if err := w.sync(); err != nil {
		t.Fatal(err)
	}
	if w.sim.Cluster("flink", "a") == nil {
		t.Error("the JobManager did not start once its ConfigMap was there")
	}
}

// TestSyncWaitsOnTimers: a pod fault breaks a JobManager and heals when its window ends, and
// a slow start starts it when it is over, with no event: Sync visits what a timer waits on.
func TestSyncWaitsOnTimers(t *testing.T) {
	w := newChangedWorld(t, "a")
	up := func() bool {
		var up bool
		w.sim.Do("flink", "a", func(c *fakeflink.Cluster) { up = c.Up() })
		return up
	}
	w.sim.DelayNextStart("flink", "a", 5*time.Second)
	w.event(w.objs["a"].JobManager)
	if err := w.sync(); err != nil {
		t.Fatal(err)
	}
	got := []bool{up()}
	w.clock.Step(5 * time.Second)
	if err := w.sync(); err != nil {
		t.Fatal(err)
	}
	got = append(got, up())
	w.sim.BreakPods("flink", "a", "CrashLoopBackOff", 10*time.Second)
	if err := w.sync(); err != nil {
		t.Fatal(err)
	}
	got = append(got, up())
	w.clock.Step(10 * time.Second)
	if err := w.sync(); err != nil {
		t.Fatal(err)
	}
	got = append(got, up())
	if diff := cmp.Diff([]bool{false, true, false, true}, got); diff != "" {
		t.Errorf("JobManager up: slow start, started, fault, healed (-want +got):\n%s", diff)
	}
}

// TestAppOf: the objects the simulator follows map to their resource; Flink's HA ConfigMaps,
// labelled with the app, do not (a JobManager reads them only when it starts).
func TestAppOf(t *testing.T) {
	objs := newChangedWorld(t, "a").objs["a"]
	pod := &corev1.Pod{}
	pod.Namespace, pod.Name, pod.Labels = "flink", "a-0", objs.JobManager.Spec.Template.Labels
	other := &corev1.ConfigMap{}
	other.Namespace, other.Name = "flink", "unrelated"
	ha := &corev1.ConfigMap{}
	ha.Namespace, ha.Name, ha.Labels = "flink", act.HAClusterConfigMapName("a"), map[string]string{act.LabelApp: "a"}
	of := func(obj any) string {
		ns, app := appOf(obj)
		return ns + "/" + app
	}
	got := map[string]string{
		"jobmanager": of(objs.JobManager), "taskmanager": of(objs.TaskManager), "configmap": of(objs.ConfigMap), "pod": of(pod),
		"other configmap": of(other), "ha configmap": of(ha), "not an object": of("x"),
		"deleted, state unknown": of(toolscache.DeletedFinalStateUnknown{Key: "flink/a", Obj: objs.JobManager}),
	}
	want := map[string]string{
		"jobmanager": "flink/a", "taskmanager": "flink/a", "configmap": "flink/a", "pod": "flink/a",
		"other configmap": "/", "ha configmap": "/", "not an object": "/", "deleted, state unknown": "flink/a",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("appOf (-want +got):\n%s", diff)
	}
}
