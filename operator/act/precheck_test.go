package act

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestPrecheckHAMetadata: a deploy next to HA metadata of the resource's cluster id is refused
// unless the resource has a cluster of its own, which is asked of the API server before
// refusing (the cache may not have seen it yet); a cluster ConfigMap without Flink's labels,
// which the cache does not hold, counts too (a JobManager joins it by name).
func TestPrecheckHAMetadata(t *testing.T) {
	d := &flinkv1beta1.FlinkDeployment{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", UID: "uid-a"}}
	own := []metav1.OwnerReference{{APIVersion: "flink.apache.org/v1beta1", Kind: "FlinkDeployment", Name: "a", UID: "uid-a", Controller: ptr.To(true)}}
	flinkLabels := map[string]string{LabelApp: "a", LabelType: TypeNative, "configmap-type": "high-availability"}
	ha := func(labels map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a-cluster-config-map", Namespace: "ns", Labels: labels}}
	}
	config := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ConfigMapName("a"), Namespace: "ns", OwnerReferences: own}}
	for name, tc := range map[string]struct {
		cache, server []client.Object
		refused       bool
	}{
		"no HA metadata":                         {},
		"another cluster's HA metadata":          {cache: []client.Object{ha(flinkLabels)}, server: []client.Object{ha(flinkLabels)}, refused: true},
		"another's, unlabelled (past the cache)": {server: []client.Object{ha(nil)}, refused: true},
		"its own, the cache not caught up":       {cache: []client.Object{ha(flinkLabels)}, server: []client.Object{ha(flinkLabels), config}},
		"its own, unlabelled, not caught up":     {server: []client.Object{ha(nil), config}},
	} {
		t.Run(name, func(t *testing.T) {
			e := &Executor{
				Client: fake.NewClientBuilder().WithObjects(tc.cache...).Build(),
				Reader: fake.NewClientBuilder().WithObjects(tc.server...).Build(),
				HASelector: func(d *flinkv1beta1.FlinkDeployment) client.MatchingLabels {
					return client.MatchingLabels{LabelApp: d.Name, LabelType: TypeNative, "configmap-type": "high-availability"}
				},
			}
			err := e.precheck(t.Context(), d, nil)
			if refused := errors.Is(err, ErrNotOwned); refused != tc.refused || (err != nil && !refused) {
				t.Errorf("precheck: %v, want refused %v", err, tc.refused)
			}
		})
	}
}
