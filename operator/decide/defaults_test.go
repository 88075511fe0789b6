package decide

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestStoredSpecsGetTheirVersionsDefaults: a spec read from the status (a rollback's) gets
// the operator's Flink defaults of its own Flink version, not the current spec's.
func TestStoredSpecsGetTheirVersionsDefaults(t *testing.T) {
	defaults := func(namespace, version string) map[string]string {
		return map[string]string{"from": namespace + "/" + version}
	}
	d := &flinkv1beta1.FlinkDeployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns"}}
	d.Spec.FlinkVersion = "v1_20"
	d.Spec.Defaults = defaults("ns", "v1_20")
	old := newReconciledSpec(flinkv1beta1.FlinkDeploymentSpec{FlinkVersion: "v1_18"}, 1, true, RestoreNone).Encode()
	for name, tc := range map[string]struct {
		in   Input
		want map[string]string
	}{
		"its own version's":           {Input{FlinkDefaults: defaults}, map[string]string{"from": "ns/v1_18"}},
		"no function: the resource's": {Input{}, map[string]string{"from": "ns/v1_20"}},
	} {
		t.Run(name, func(t *testing.T) {
			s := &step{in: tc.in, d: d}
			r, err := s.stored(old)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, r.Spec.Defaults); diff != "" {
				t.Errorf("defaults (-want +got):\n%s", diff)
			}
		})
	}
}
