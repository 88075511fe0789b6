package fleet

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// TestFloorPlan: the floor makes the operator's Service and Deployment creates as such,
// interleaved, and every other write as a ConfigMap create; without a split, only ConfigMaps.
func TestFloorPlan(t *testing.T) {
	s, d, c := floorService, floorDeployment, floorConfigMap
	for name, tc := range map[string]struct {
		writes int64
		byKind map[string]int64
		want   []string
	}{
		"split as the operator wrote": {
			writes: 8, byKind: map[string]int64{"POST services": 4, "POST deployments": 2, "PUT flinkdeployments/status": 2},
			want: []string{s, d, c, s, d, c, s, s},
		},
		"no split":              {writes: 3, want: []string{c, c, c}},
		"more counted than all": {writes: 2, byKind: map[string]int64{"POST services": 5}, want: []string{s, s}},
	} {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, floorPlan(tc.writes, tc.byKind)); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFloorCreatesWhatThePlanSays: every other Service of the floor gets a cluster IP, its
// Deployments are valid ones, and the rest are ConfigMaps.
func TestFloorCreatesWhatThePlanSays(t *testing.T) {
	c := fake.NewClientBuilder().Build()
	if _, _, err := floor(t.Context(), c, 6, map[string]int64{"POST services": 2, "POST deployments": 1}, false); err != nil {
		t.Fatal(err)
	}
	var svcs corev1.ServiceList
	var deps appsv1.DeploymentList
	var cms corev1.ConfigMapList
	if err := c.List(t.Context(), &svcs); err != nil {
		t.Fatal(err)
	}
	if err := c.List(t.Context(), &deps); err != nil {
		t.Fatal(err)
	}
	if err := c.List(t.Context(), &cms); err != nil {
		t.Fatal(err)
	}
	headless := 0
	for _, s := range svcs.Items {
		if s.Spec.ClusterIP == corev1.ClusterIPNone {
			headless++
		}
	}
	if len(svcs.Items) != 2 || headless != 1 || len(deps.Items) != 1 || len(cms.Items) != 3 {
		t.Errorf("floor created %d Services (%d headless), %d Deployments, %d ConfigMaps; want 2 (1), 1, 3", len(svcs.Items), headless, len(deps.Items), len(cms.Items))
	}
	if len(deps.Items) == 1 && len(deps.Items[0].Spec.Template.Spec.Containers) != 1 {
		t.Errorf("floor Deployment without a container: %+v", deps.Items[0].Spec)
	}
}
