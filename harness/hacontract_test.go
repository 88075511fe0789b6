package harness

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/fakeflink/kubeha"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/observe"
)

// TestOperatorFindsFlinksHAConfigMaps: fakeflink spells the labels of Flink's HA ConfigMaps
// itself (kubeha), and the operator's selector (observe.HASelector) finds both of a job's
// ConfigMaps by them. A misspelling on either side fails here, not silently in a last-state
// upgrade that thinks the HA metadata is gone.
func TestOperatorFindsFlinksHAConfigMaps(t *testing.T) {
	c := fake.NewClientBuilder().Build()
	ha := &kubeha.ConfigMapHA{Client: c, Namespace: "flink"}
	if err := ha.Save("job", fakeflink.HAJob{JobID: "0123456789abcdef0123456789abcdef", CheckpointID: 3, CheckpointPath: "file:///cp/chk-3"}); err != nil {
		t.Fatal(err)
	}
	d := &flinkv1beta1.FlinkDeployment{ObjectMeta: metav1.ObjectMeta{Name: "job", Namespace: "flink"}}
	var found corev1.ConfigMapList
	if err := c.List(context.Background(), &found, client.InNamespace("flink"), observe.HASelector(d)); err != nil {
		t.Fatal(err)
	}
	if len(found.Items) != 2 {
		t.Errorf("the operator's HA selector finds %d of the job's 2 HA ConfigMaps", len(found.Items))
	}
}
