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
	"k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/flinkop/flinkop/harness/fixtures"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

// podWorld is a simulator over a fake API holding one resource's rendered objects.
type podWorld struct {
	ctx context.Context
	t   *testing.T
	c   client.Client
	sim *Sim
	tm  *appsv1.Deployment
}

func newPodWorld(t *testing.T, tmReplicas int32, ha ...bool) *podWorld {
	t.Helper()
	d := fixtures.StatefulDeployment("flink", "a", "savepoint")
	if len(ha) > 0 && ha[0] {
		fixtures.WithHA(d)
	}
	d.UID = "uid-a"
	d.Spec.Mode = flinkv1beta1.DeploymentModeStandalone // a TaskManager Deployment
	d.Spec.TaskManager = &flinkv1beta1.TaskManagerSpec{Replicas: &tmReplicas}
	objs, err := act.Render(act.Cluster{Resource: d, Spec: d.Spec, Generation: 1, JobID: decide.JobIDFor(string(d.UID), 1, "")})
	if err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithStatusSubresource(&appsv1.Deployment{}, &corev1.Pod{}).
		WithObjects(objs.ConfigMap, objs.JobManager, objs.TaskManager).Build()
	return &podWorld{
		ctx: context.Background(), t: t, c: c, tm: objs.TaskManager,
		sim: New(c, clocktesting.NewFakeClock(time.Unix(1_700_000_000, 0)), rand.New(rand.NewSource(1))),
	}
}

// pods syncs and returns the pods as "name phase ready", and what disagrees.
func (w *podWorld) pods() []string {
	w.t.Helper()
	if err := w.sim.Sync(w.ctx); err != nil {
		w.t.Fatal(err)
	}
	var pods corev1.PodList
	if err := w.c.List(w.ctx, &pods); err != nil {
		w.t.Fatal(err)
	}
	var out []string
	for i := range pods.Items {
		p := &pods.Items[i]
		r := "not-ready"
		if podReady(p) {
			r = "ready"
		}
		out = append(out, p.Name+" "+string(p.Status.Phase)+" "+r)
	}
	slices.Sort(out)
	bad, err := PodsDisagree(w.ctx, w.c, "flink")
	if err != nil {
		w.t.Fatal(err)
	}
	return append(out, bad...)
}

// change updates the TaskManager Deployment.
func (w *podWorld) change(f func(*appsv1.Deployment)) {
	w.t.Helper()
	if err := w.c.Get(w.ctx, client.ObjectKeyFromObject(w.tm), w.tm); err != nil {
		w.t.Fatal(err)
	}
	f(w.tm)
	if err := w.c.Update(w.ctx, w.tm); err != nil {
		w.t.Fatal(err)
	}
}

// TestPodsAsAKubeletShowsThem: one pod per replica, Running and Ready once started, replaced
// by Pending ones that are not ready while their image cannot be pulled, removed on a
// scale-down and with their Deployment; the Deployment's status counts the pods it has.
func TestPodsAsAKubeletShowsThem(t *testing.T) {
	w := newPodWorld(t, 3)
	steps := []struct {
		name   string
		change func(*appsv1.Deployment)
		want   []string
	}{
		{"three TaskManagers", nil, []string{"a-0 Running ready", "a-taskmanager-0 Running ready", "a-taskmanager-1 Running ready", "a-taskmanager-2 Running ready"}},
		{"scaled to one", func(d *appsv1.Deployment) { d.Spec.Replicas = new(int32(1)) }, []string{"a-0 Running ready", "a-taskmanager-0 Running ready"}},
		{"an image that cannot be pulled", func(d *appsv1.Deployment) {
			d.Spec.Replicas = new(int32(2))
			d.Spec.Template.Spec.Containers[0].Image = "flink:missing"
		}, []string{"a-0 Running ready", "a-taskmanager-0 Pending not-ready", "a-taskmanager-1 Pending not-ready"}},
		{
			"a crash loop", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "flink:crashloop" },
			[]string{"a-0 Running ready", "a-taskmanager-0 Running not-ready", "a-taskmanager-1 Running not-ready"},
		},
	}
	for _, s := range steps {
		if s.change != nil {
			w.change(s.change)
		}
		if diff := cmp.Diff(s.want, w.pods()); diff != "" {
			t.Errorf("%s: pods (-want +got):\n%s", s.name, diff)
		}
	}
	if err := w.c.Delete(w.ctx, w.tm); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a-0 Running ready"}, w.pods()); diff != "" {
		t.Errorf("TaskManager Deployment deleted: pods (-want +got):\n%s", diff)
	}
}

// TestPodsDisagreeFires: the check reports a Deployment counting pods it does not have (the
// simulator's old single pod for every replica) and a ready pod that is Pending.
func TestPodsDisagreeFires(t *testing.T) {
	w := newPodWorld(t, 2)
	if got := w.pods(); len(got) != 3 {
		t.Fatalf("pods %v; want three that agree", got)
	}
	var p corev1.Pod
	if err := w.c.Get(w.ctx, client.ObjectKey{Namespace: "flink", Name: "a-taskmanager-1"}, &p); err != nil {
		t.Fatal(err)
	}
	if err := w.c.Delete(w.ctx, &p); err != nil {
		t.Fatal(err)
	}
	if err := w.c.Get(w.ctx, client.ObjectKey{Namespace: "flink", Name: "a-taskmanager-0"}, &p); err != nil {
		t.Fatal(err)
	}
	p.Status.Phase = corev1.PodPending
	if err := w.c.Status().Update(w.ctx, &p); err != nil {
		t.Fatal(err)
	}
	got, err := PodsDisagree(w.ctx, w.c, "flink")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`pod a-taskmanager-0: Ready true, phase "Pending", containers ready true`,
		"deployment a-taskmanager: status 2/2 ready, its pods 1/1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("disagreements (-want +got):\n%s", diff)
	}
}

// TestJobManagerAdvertisesItsPodIP: with HA the JobManager starts with its pod's IP, which the
// kubelet puts for $(_POD_IP_ADDRESS) into its arguments, and advertises it; without HA it
// advertises the internal Service.
func TestJobManagerAdvertisesItsPodIP(t *testing.T) {
	for _, ha := range []bool{true, false} {
		w := newPodWorld(t, 1, ha)
		w.pods()
		var p corev1.Pod
		if err := w.c.Get(w.ctx, client.ObjectKey{Namespace: "flink", Name: "a-0"}, &p); err != nil {
			t.Fatal(err)
		}
		want := "a-rest.flink"
		if c := w.sim.Cluster("flink", "a"); c != nil {
			want = c.Spec().Config["jobmanager.rpc.address"]
		}
		if ha && (p.Status.PodIP == "" || want != p.Status.PodIP) {
			t.Errorf("HA: the JobManager advertises %q; want its pod IP %q", want, p.Status.PodIP)
		}
		if !ha && want == p.Status.PodIP {
			t.Errorf("no HA: the JobManager advertises its pod IP %q; want the internal Service", want)
		}
	}
}

// TestSharedJobManagerAddressIsRefused: with HA and two JobManager replicas, JobManagers that
// advertise their pod IPs (as rendered) take their TaskManagers; ones that advertise the shared
// Service name (the pod-IP argument dropped) take none, as Flink's standbys refuse them.
func TestSharedJobManagerAddressIsRefused(t *testing.T) {
	cases := map[string]struct {
		dropPodIP bool
		want      int
	}{
		"own pod IPs":         {false, 2},
		"shared Service name": {true, 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := newPodWorld(t, 2, true)
			jm := &appsv1.Deployment{}
			if err := w.c.Get(w.ctx, client.ObjectKey{Namespace: "flink", Name: "a"}, jm); err != nil {
				t.Fatal(err)
			}
			jm.Spec.Replicas = ptrTo(int32(2))
			if tc.dropPodIP {
				c := &jm.Spec.Template.Spec.Containers[0]
				c.Args = slices.DeleteFunc(c.Args, func(a string) bool { return a == act.PodIPArg })
				if i := slices.Index(c.Args, "--host"); i >= 0 {
					c.Args = slices.Delete(c.Args, i, i+1)
				}
			}
			if err := w.c.Update(w.ctx, jm); err != nil {
				t.Fatal(err)
			}
			w.pods()
			if got := len(w.sim.Cluster("flink", "a").TaskManagers()); got != tc.want {
				t.Errorf("%d TaskManagers registered, want %d", got, tc.want)
			}
		})
	}
}
