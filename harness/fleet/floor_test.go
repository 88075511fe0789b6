package fleet

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/flinkop/flinkop/harness/envtest"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestFloorScripts: the floor deals each counted kind of write out over the deployments in
// turn, in the order one deployment's writes are made (one status update before its creates,
// the rest after), and makes every other write a ConfigMap create.
func TestFloorScripts(t *testing.T) {
	f, s, cm, svc, dep, ev := floorFinalizer, floorStatus, floorConfigMap, floorService, floorDeployment, floorEvent
	for name, tc := range map[string]struct {
		n      int
		writes int64
		byKind map[string]int64
		want   [][]string
	}{
		"one deployment, as the operator wrote": {
			n: 1, writes: 10,
			byKind: map[string]int64{"PUT flinkdeployments": 1, "PUT flinkdeployments/status": 3, "POST configmaps": 1, "POST services": 2, "POST deployments": 2, "POST events": 1},
			want:   [][]string{{f, s, cm, svc, svc, dep, dep, ev, s, s}},
		},
		"shares dealt in turn": {
			n: 2, writes: 5, byKind: map[string]int64{"PUT flinkdeployments/status": 3, "POST services": 1},
			want: [][]string{{s, cm, svc, s}, {s}},
		},
		"other writes as ConfigMaps": {
			n: 1, writes: 3, byKind: map[string]int64{"PATCH events": 2, "POST events": 1},
			want: [][]string{{cm, cm, ev}},
		},
		"no split": {n: 1, writes: 2, want: [][]string{{cm, cm}}},
	} {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, floorScripts(tc.n, tc.writes, tc.byKind)); diff != "" {
				t.Errorf("scripts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFloorMakesTheOperatorsRequests: the floor updates its deployments' finalizers and
// status (writing the converged status), creates the objects the operator renders (one REST
// Service with a cluster IP, one headless, copies under new names past those), and Events.
func TestFloorMakesTheOperatorsRequests(t *testing.T) {
	scheme, err := envtest.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithStatusSubresource(&flinkv1beta1.FlinkDeployment{}).Build()
	status := flinkv1beta1.FlinkDeploymentStatus{JobManagerDeploymentStatus: flinkv1beta1.JobManagerReady}
	status.LifecycleState = flinkv1beta1.LifecycleStable
	byKind := map[string]int64{"PUT flinkdeployments": 1, "PUT flinkdeployments/status": 2, "POST services": 3, "POST deployments": 2, "POST events": 1}
	calls := 0
	if _, _, err := floor(t.Context(), c, 1, 10, byKind, status, false, func() { calls++ }); err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Errorf("afterParallel called %d times, want once", calls)
	}
	var fds flinkv1beta1.FlinkDeploymentList
	var svcs corev1.ServiceList
	var deps appsv1.DeploymentList
	var cms corev1.ConfigMapList
	var events corev1.EventList
	for _, l := range []client.ObjectList{&fds, &svcs, &deps, &cms, &events} {
		if err := c.List(t.Context(), l, client.InNamespace(floorNamespace)); err != nil {
			t.Fatal(err)
		}
	}
	if len(fds.Items) != 1 {
		t.Fatalf("floor deployments: %d, want 1", len(fds.Items))
	}
	fd := fds.Items[0]
	if len(fd.Finalizers) != 1 || fd.Status.LifecycleState != flinkv1beta1.LifecycleStable || fd.Status.ReconciliationStatus.ReconciliationTimestamp == 0 {
		t.Errorf("floor deployment: finalizers %v, status %+v; want one finalizer and the converged status, stamped", fd.Finalizers, fd.Status)
	}
	var names []string
	headless := 0
	for _, s := range svcs.Items {
		names = append(names, s.Name)
		if s.Spec.ClusterIP == corev1.ClusterIPNone {
			headless++
		}
	}
	if diff := cmp.Diff([]string{"floor-p-00000-rest", "floor-p-00000-rest-1", "floor-p-00000"}, names, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" || headless != 1 {
		t.Errorf("floor Services (-want +got), %d headless (want 1):\n%s", headless, diff)
	}
	if len(deps.Items) != 2 || len(cms.Items) != 1 || len(events.Items) != 1 {
		t.Errorf("floor created %d Deployments, %d ConfigMaps, %d Events; want 2, 1, 1", len(deps.Items), len(cms.Items), len(events.Items))
	}
	for _, d := range deps.Items {
		if len(d.Spec.Template.Spec.Containers) == 0 || len(d.OwnerReferences) != 1 || d.OwnerReferences[0].UID != fd.UID {
			t.Errorf("floor Deployment %s: containers %d, owners %v; want the operator's render, owned by %s", d.Name, len(d.Spec.Template.Spec.Containers), d.OwnerReferences, fd.UID)
		}
	}
}
