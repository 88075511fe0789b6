package podsim

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// TestClientsetRoutesToTheWorldsClient: what the typed clientset does (create, get, list by
// label, delete) happens in the world's API, and a created pod is bound to the simulator's node.
func TestClientsetRoutesToTheWorldsClient(t *testing.T) {
	ctx := context.Background()
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "flink", Name: "a", UID: "u"}}
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(dep).Build()
	cs := Clientset(c)
	if got, err := cs.AppsV1().Deployments("flink").Get(ctx, "a", metav1.GetOptions{}); err != nil || got.UID != "u" {
		t.Fatalf("get deployment: %v, %v", got, err)
	}
	for _, name := range []string{"p1", "p2"} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "flink", Name: name, Labels: map[string]string{"app": name}}}
		if _, err := cs.CoreV1().Pods("flink").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var p1 corev1.Pod
	if err := c.Get(ctx, client.ObjectKey{Namespace: "flink", Name: "p1"}, &p1); err != nil || p1.Spec.NodeName != NodeName {
		t.Fatalf("created pod in the world: %v, node %q", err, p1.Spec.NodeName)
	}
	list, err := cs.CoreV1().Pods("flink").List(ctx, metav1.ListOptions{LabelSelector: "app=p2"})
	if err != nil || len(list.Items) != 1 || list.Items[0].Name != "p2" {
		t.Fatalf("list by label: %v, %v", list, err)
	}
	if err := cs.CoreV1().Pods("flink").Delete(ctx, "p1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "flink", Name: "p1"}, &p1); !apierrors.IsNotFound(err) {
		t.Fatalf("deleted pod: %v, want NotFound", err)
	}
	if _, err := cs.CoreV1().Services("flink").Get(ctx, "x", metav1.GetOptions{}); err == nil {
		t.Error("a resource it does not serve answered")
	}
}
