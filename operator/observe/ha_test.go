package observe

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestIsJobHAConfigMap(t *testing.T) {
	now := metav1.Now()
	cases := map[string]struct {
		cm   corev1.ConfigMap
		want bool
	}{
		"a job's checkpoints":        {cm: corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "orders-00000000000000000000000000000001-config-map"}}, want: true},
		"the cluster's alone":        {cm: corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "orders-cluster-config-map"}}},
		"pre-1.15 JobManager leader": {cm: corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "orders-00000000000000000000000000000001-jobmanager-leader"}}, want: true},
		"being deleted":              {cm: corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "orders-1-config-map", DeletionTimestamp: &now}}},
		"the autoscaler's":           {cm: corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "autoscaler-orders-config-map", Labels: map[string]string{"component": "autoscaler"}}}},
		"something else":             {cm: corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "orders-dispatcher-leader"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := IsJobHAConfigMap(&tc.cm); got != tc.want {
				t.Errorf("IsJobHAConfigMap(%s) = %v, want %v", tc.cm.Name, got, tc.want)
			}
		})
	}
}
