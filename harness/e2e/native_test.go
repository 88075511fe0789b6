//go:build e2e

package e2e

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/fakeflink/kuberm"
	"github.com/flinkop/flinkop/operator/act"
)

// wantNativeTaskManagers checks a running native cluster on kind: no TaskManager Deployment,
// and the TaskManager pods its JobManager's resource manager created, named and labelled as
// Flink does, owned by the JobManager Deployment and running.
func wantNativeTaskManagers(t *testing.T, name string) {
	t.Helper()
	ctx := context.Background()
	var tm appsv1.Deployment
	if err := env.client.Get(ctx, client.ObjectKey{Namespace: jobNS, Name: act.TaskManagerName(name)}, &tm); !apierrors.IsNotFound(err) {
		t.Errorf("TaskManager Deployment of a native cluster: %v, want none", err)
	}
	var jm appsv1.Deployment
	if err := env.client.Get(ctx, client.ObjectKey{Namespace: jobNS, Name: name}, &jm); err != nil {
		t.Fatal(err)
	}
	var pods corev1.PodList
	if err := env.client.List(ctx, &pods, client.InNamespace(jobNS), client.MatchingLabels(kuberm.Selector(name))); err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) == 0 {
		t.Fatalf("no TaskManager pod of %s", name)
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		owner := metav1.GetControllerOf(p)
		if owner == nil || owner.Kind != "Deployment" || owner.UID != jm.UID || p.Status.Phase != corev1.PodRunning {
			t.Errorf("TaskManager pod %s: owner %+v, phase %s; want the JobManager Deployment's, Running", p.Name, owner, p.Status.Phase)
		}
	}
}
