package controller

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
)

// TestScopeAdmitsTheOperatorsOwnChildren: the label selector is the user's; what the operator
// made for a resource it admitted (a blue/green child, a savepoint record) is admitted in a
// watched namespace whatever its labels, and nowhere else.
func TestScopeAdmitsTheOperatorsOwnChildren(t *testing.T) {
	scope := config.Scope{Namespaces: []string{"flink"}, Selector: "team=a"}
	owned := func(ns, apiVersion string) *flinkv1beta1.FlinkDeployment {
		return &flinkv1beta1.FlinkDeployment{ObjectMeta: metav1.ObjectMeta{
			Name: "bg-blue", Namespace: ns, Labels: map[string]string{flinkv1beta1.BlueGreenTypeLabel: "BLUE"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: apiVersion, Kind: "FlinkBlueGreenDeployment", Name: "bg", UID: "u", Controller: ptr.To(true)}},
		}}
	}
	plain := func(labels map[string]string) *flinkv1beta1.FlinkDeployment {
		return &flinkv1beta1.FlinkDeployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "flink", Labels: labels}}
	}
	for name, tc := range map[string]struct {
		obj  *flinkv1beta1.FlinkDeployment
		want bool
	}{
		"a blue/green child in a watched namespace":     {obj: owned("flink", flinkv1beta1.GroupVersion.String()), want: true},
		"a blue/green child elsewhere":                  {obj: owned("other", flinkv1beta1.GroupVersion.String())},
		"an object another controller owns":             {obj: owned("flink", "apps/v1")},
		"a user's resource the selector matches":        {obj: plain(map[string]string{"team": "a"}), want: true},
		"a user's resource the selector does not match": {obj: plain(map[string]string{"team": "b"})},
	} {
		t.Run(name, func(t *testing.T) {
			if got := admits(scope, tc.obj); got != tc.want {
				t.Errorf("admits = %v, want %v", got, tc.want)
			}
		})
	}
}
