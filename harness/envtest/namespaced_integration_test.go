//go:build integration

package envtest

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const operatorSA = "system:serviceaccount:flinkop-system:flinkop-manager"

// TestNamespacedInstall installs the per-namespace variants on a real kube-apiserver
// (config/namespaced, and the Helm chart with watchNamespaces): the operator may manage its
// kinds in the watched namespace and nowhere else, keeps its Lease in its own namespace only,
// watches only that namespace, and may still authenticate metrics scrapers.
func TestNamespacedInstall(t *testing.T) {
	for name, src := range map[string]installSource{
		"kustomize config/namespaced":         {kustomize: "namespaced"},
		"helm chart, watchNamespaces={flink}": {helm: true, helmArgs: []string{"--set", "watchNamespaces={flink}"}},
	} {
		t.Run(name, func(t *testing.T) { checkNamespacedInstall(t, src.render(t)) })
	}
}

func checkNamespacedInstall(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	env := start(t)
	ctx := context.Background()
	for _, name := range []string{"flinkop-system", "flink", "other"} {
		ns := &corev1.Namespace{}
		ns.Name = name
		if err := env.Client.Create(ctx, ns); client.IgnoreAlreadyExists(err) != nil {
			t.Fatal(err)
		}
	}
	var dep *appsv1.Deployment
	for _, o := range objs {
		if o.GetKind() == "CustomResourceDefinition" || (o.GetKind() == "Namespace" && o.GetName() == "flinkop-system") {
			continue
		}
		if ref, _, _ := unstructured.NestedString(o.Object, "roleRef", "name"); o.GetKind() == "ClusterRoleBinding" && ref == "flinkop-manager" {
			t.Error("the namespaced install binds the operator's ClusterRole cluster-wide")
		}
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatalf("create %s %s: %v", o.GetKind(), o.GetName(), err)
		}
		if o.GetKind() == "Deployment" {
			dep = &appsv1.Deployment{}
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(o), dep); err != nil {
				t.Fatal(err)
			}
		}
	}
	if dep == nil || !contains(dep.Spec.Template.Spec.Containers[0].Args, "--namespaces=flink") {
		t.Errorf("the operator does not watch only the flink namespace: %v", dep)
	}
	op := as(t, env.Config, operatorSA)
	var deps appsv1.DeploymentList
	if err := op.List(ctx, &deps, client.InNamespace("flink")); err != nil {
		t.Errorf("the operator cannot list Deployments in its watched namespace: %v", err)
	}
	for what, err := range map[string]error{
		"Deployments in another namespace": op.List(ctx, &deps, client.InNamespace("other")),
		"Deployments cluster-wide":         op.List(ctx, &deps),
		"Leases in a watched namespace":    op.List(ctx, &coordinationv1.LeaseList{}, client.InNamespace("flink")),
		"Secrets in a watched namespace":   op.List(ctx, &corev1.SecretList{}, client.InNamespace("flink")),
	} {
		if !apierrors.IsForbidden(err) {
			t.Errorf("listing %s as the operator: %v; want Forbidden", what, err)
		}
	}
	checkLeasesAndMetricsAuth(ctx, t, op)
}

// checkLeasesAndMetricsAuth: the operator keeps its Lease in flinkop-system and may review
// tokens and access for its metrics endpoint.
func checkLeasesAndMetricsAuth(ctx context.Context, t *testing.T, op client.Client) {
	t.Helper()
	if err := op.List(ctx, &coordinationv1.LeaseList{}, client.InNamespace("flinkop-system")); err != nil {
		t.Errorf("the operator cannot list Leases in its own namespace: %v", err)
	}
	// Leader election records an Event about the Lease, in the operator's namespace.
	event := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{GenerateName: "lease-", Namespace: "flinkop-system"},
		InvolvedObject: corev1.ObjectReference{Kind: "Lease", Namespace: "flinkop-system", Name: "flinkop.flink.apache.org"},
		Reason:         "LeaderElection", Message: "became leader", Type: corev1.EventTypeNormal,
	}
	if err := op.Create(ctx, event); err != nil {
		t.Errorf("the operator cannot record leader election's Event in its own namespace: %v", err)
	}
	review := &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: "not-a-token"}}
	if err := op.Create(ctx, review); err != nil {
		t.Errorf("the operator cannot review a metrics scraper's token: %v", err)
	}
}
