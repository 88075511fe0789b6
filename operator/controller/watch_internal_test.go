package controller

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// Writing the autoscaler's state must not start the next look at the job (a reconcile storm
// of two a second per autoscaled job, found in review); the cluster's own ConfigMap still does.
func TestAutoscalerStateEventsDoNotReconcile(t *testing.T) {
	d := &flinkv1beta1.FlinkDeployment{ObjectMeta: metav1.ObjectMeta{Name: "job", Namespace: "ns", UID: "u"}}
	if state := act.RenderAutoscalerState(d, map[string]string{"k": "v"}); configMapEnqueues(state) {
		t.Error("an event of the autoscaler's state reconciles the deployment")
	}
	flinkConfig := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: act.ConfigMapName("job"), Labels: map[string]string{act.LabelApp: "job"}}}
	if !configMapEnqueues(flinkConfig) {
		t.Error("an event of the flink-config ConfigMap does not reconcile the deployment")
	}
}
