package decide

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

func TestWithSessionDemand(t *testing.T) {
	session := func(mods ...func(*flinkv1beta1.FlinkDeploymentSpec)) *flinkv1beta1.FlinkDeployment {
		d := &flinkv1beta1.FlinkDeployment{Spec: flinkv1beta1.FlinkDeploymentSpec{
			FlinkConfiguration: flinkv1beta1.NewFlinkConfiguration(map[string]string{"taskmanager.numberOfTaskSlots": "2"}),
		}}
		for _, m := range mods {
			m(&d.Spec)
		}
		return d
	}
	three := int32(3)
	for name, tc := range map[string]struct {
		d     *flinkv1beta1.FlinkDeployment
		slots int
		want  int32 // taskManager.replicas; 0 for unset
	}{
		"native session cluster: enough TaskManagers for 5 slots of 2": {d: session(), slots: 5, want: 3},
		"no demand: as rendered":       {d: session(), slots: 0},
		"standalone: the user's count": {d: session(func(s *flinkv1beta1.FlinkDeploymentSpec) { s.Mode = flinkv1beta1.DeploymentModeStandalone }), slots: 5},
		"replicas set: the user's count": {d: session(func(s *flinkv1beta1.FlinkDeploymentSpec) {
			s.TaskManager = &flinkv1beta1.TaskManagerSpec{Replicas: &three}
		}), slots: 50, want: 3},
		"an application cluster":  {d: session(func(s *flinkv1beta1.FlinkDeploymentSpec) { s.Job = &flinkv1beta1.JobSpec{} }), slots: 5},
		"bounded as replicas are": {d: session(), slots: 1 << 30, want: flinkv1beta1.MaxReplicas},
		"bounded by slotmanager.number-of-slots.max": {d: session(func(s *flinkv1beta1.FlinkDeploymentSpec) {
			s.FlinkConfiguration.Set("slotmanager.number-of-slots.max", "4")
		}), slots: 50, want: 2},
		"never fewer than rendered (parallelism.default 8: 4 TaskManagers)": {d: session(func(s *flinkv1beta1.FlinkDeploymentSpec) {
			s.FlinkConfiguration.Set("parallelism.default", "8")
		}), slots: 2},
	} {
		t.Run(name, func(t *testing.T) {
			before := tc.d.DeepCopy()
			got := WithSessionDemand(tc.d, tc.slots)
			var n int32
			if tm := got.Spec.TaskManager; tm != nil && tm.Replicas != nil {
				n = *tm.Replicas
			}
			if n != tc.want {
				t.Errorf("replicas %d, want %d", n, tc.want)
			}
			if !equality.Semantic.DeepEqual(before, tc.d) {
				t.Error("the resource itself was changed")
			}
		})
	}
}
