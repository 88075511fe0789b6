package podsim

import (
	"context"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/harness/fixtures"
	"github.com/flinkop/flinkop/operator/act"
	"github.com/flinkop/flinkop/operator/decide"
)

// nativeWorld is a simulator over a fake API holding one native cluster's rendered objects.
type nativeWorld struct {
	ctx   context.Context
	t     *testing.T
	c     client.Client
	clock *clocktesting.FakeClock
	sim   *Sim
	jm    *appsv1.Deployment
}

func newNativeWorld(t *testing.T, parallelism int32) *nativeWorld {
	t.Helper()
	d := fixtures.StatefulDeployment("flink", "a", "savepoint")
	d.UID = "uid-a"
	d.Spec.Job.Parallelism = &parallelism // 2 slots per TaskManager (the fixture's)
	objs, err := act.Render(act.Cluster{Resource: d, Spec: d.Spec, Generation: 1, JobID: decide.JobIDFor(string(d.UID), 1, "")})
	if err != nil {
		t.Fatal(err)
	}
	objs.JobManager.UID = "jm-uid-1"
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithStatusSubresource(&appsv1.Deployment{}, &corev1.Pod{}).
		WithObjects(objs.ConfigMap, objs.JobManager).Build()
	clk := clocktesting.NewFakeClock(time.Unix(1_700_000_000, 0))
	return &nativeWorld{
		ctx: context.Background(), t: t, c: c, clock: clk, jm: objs.JobManager,
		sim: New(c, clk, rand.New(rand.NewSource(1))),
	}
}

// taskManagers syncs (the clock moved by d first) and lists the TaskManager pods as
// "name phase ready owner", with what PodsDisagree reports.
func (w *nativeWorld) taskManagers(d time.Duration) []string {
	w.t.Helper()
	w.clock.Step(d)
	w.sim.Tick()
	if err := w.sim.Sync(w.ctx); err != nil {
		w.t.Fatal(err)
	}
	var pods corev1.PodList
	if err := w.c.List(w.ctx, &pods, client.MatchingLabels{"component": "taskmanager", "type": "flink-native-kubernetes"}); err != nil {
		w.t.Fatal(err)
	}
	var out []string
	for i := range pods.Items {
		p := &pods.Items[i]
		r := "not-ready"
		if podReady(p) {
			r = "ready"
		}
		owner := "none"
		if o := metav1.GetControllerOf(p); o != nil {
			owner = o.Kind + "/" + o.Name
		}
		out = append(out, p.Name+" "+string(p.Status.Phase)+" "+r+" "+owner)
	}
	slices.Sort(out)
	bad, err := PodsDisagree(w.ctx, w.c, "flink")
	if err != nil {
		w.t.Fatal(err)
	}
	return append(out, bad...)
}

func (w *nativeWorld) registered() []string {
	var ids []string
	w.sim.Do("flink", "a", func(c *fakeflink.Cluster) {
		for id := range c.TaskManagers() {
			ids = append(ids, id)
		}
	})
	slices.Sort(ids)
	return ids
}

// TestNativeResourceManagerMakesTheTaskManagerPods: a native JobManager's resource manager
// creates the TaskManager pods its job's slots need (parallelism 3, 2 slots each: 2), owned by
// the JobManager Deployment, which the kubelet runs and which register with it; a lost pod is
// replaced under the next name; the pods go with their Deployment, as the garbage collector
// deletes them.
func TestNativeResourceManagerMakesTheTaskManagerPods(t *testing.T) {
	w := newNativeWorld(t, 3)
	w.taskManagers(0) // the JobManager starts and the job asks for its slots
	want := []string{"a-taskmanager-1-1 Running ready Deployment/a", "a-taskmanager-1-2 Running ready Deployment/a"}
	if diff := cmp.Diff(want, w.taskManagers(time.Second)); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a-taskmanager-1-1", "a-taskmanager-1-2"}, w.registered()); diff != "" {
		t.Errorf("registered TaskManagers (-want +got):\n%s", diff)
	}
	lost := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "flink", Name: "a-taskmanager-1-1"}}
	if err := w.c.Delete(w.ctx, lost); err != nil {
		t.Fatal(err)
	}
	w.taskManagers(time.Second) // the loss is seen
	want = []string{"a-taskmanager-1-2 Running ready Deployment/a", "a-taskmanager-1-3 Running ready Deployment/a"}
	if diff := cmp.Diff(want, w.taskManagers(time.Second)); diff != "" {
		t.Errorf("after a lost pod (-want +got):\n%s", diff)
	}
	if err := w.c.Delete(w.ctx, w.jm); err != nil {
		t.Fatal(err)
	}
	if got := w.taskManagers(time.Second); len(got) != 0 {
		t.Errorf("after the JobManager Deployment went: %v, want no pod", got)
	}
}

// TestNativeTaskManagerPodThatCannotStart: a TaskManager pod whose container fails under the
// image contract (no memory size Flink accepts) is Failed, not registered, and replaced.
func TestNativeTaskManagerPodThatCannotStart(t *testing.T) {
	w := newNativeWorld(t, 1)
	var cm corev1.ConfigMap
	if err := w.c.Get(w.ctx, client.ObjectKey{Namespace: "flink", Name: act.ConfigMapName("a")}, &cm); err != nil {
		t.Fatal(err)
	}
	w.taskManagers(0)
	w.taskManagers(time.Second)
	// The TaskManagers' ConfigMap is the JobManager's: a broken memory size reaches them only
	// through a new process, so break it in the simulator's copy of what the JobManager read.
	n := w.sim.node("flink/a")
	n.native.pod.ConfFiles = map[string]string{"config.yaml": "taskmanager.memory.process.size: 100m\n"}
	if err := w.c.Delete(w.ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "flink", Name: "a-taskmanager-1-1"}}); err != nil {
		t.Fatal(err)
	}
	w.taskManagers(time.Second)
	got := w.taskManagers(time.Second)
	if len(got) == 0 || !slices.ContainsFunc(got, func(s string) bool { return s == "a-taskmanager-1-2 Failed not-ready Deployment/a" }) {
		t.Errorf("pods %v, want a-taskmanager-1-2 Failed", got)
	}
	if ids := w.registered(); slices.Contains(ids, "a-taskmanager-1-2") {
		t.Errorf("a TaskManager that did not start registered: %v", ids)
	}
}
