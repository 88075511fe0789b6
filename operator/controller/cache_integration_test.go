//go:build integration

package controller_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestManagerCachesOnlyItsObjects: with the operator's cache options, ConfigMaps and Pods
// that are not the operator's never enter its cache, the FlinkDeployment still runs (its
// flink-config ConfigMap, pods and Deployments are cached), and a Deployment of another owner
// under the resource's name, invisible to the cache, is still refused, not taken over.
func TestManagerCachesOnlyItsObjects(t *testing.T) {
	const bystanders = 200
	foreign := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "taken", Namespace: ns, Labels: map[string]string{"team": "other"}},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "other"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"team": "other"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	}
	ctx, c, sim, mgr := startManagerWith(t, func(ctx context.Context, c client.Client) {
		for i := range bystanders {
			objs := []client.Object{
				&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bystander-%d", i), Namespace: ns}, Data: map[string]string{"k": "v"}},
				&corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bystander-%d", i), Namespace: ns},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
				},
			}
			for _, o := range objs {
				if err := c.Create(ctx, o); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := c.Create(ctx, foreign.DeepCopy()); err != nil {
			t.Fatal(err)
		}
	})
	for _, name := range []string{"basic", "taken"} {
		d := deployment(name, flinkv1beta1.UpgradeModeStateless)
		d.UID, d.Generation = "", 0
		if err := c.Create(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, sim, 60*time.Second, "basic RUNNING and taken refused", func() bool {
		var basic, taken flinkv1beta1.FlinkDeployment
		return c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "basic"}, &basic) == nil &&
			basic.Status.JobStatus.State == flinkv1beta1.JobStatusRunning &&
			c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "taken"}, &taken) == nil &&
			strings.Contains(flinkv1beta1.ErrorMessage(taken.Status.Error), "is not controlled by this resource")
	})
	cms := act.ConfigMapMetadataList()
	pods := act.PodMetadataList()
	if err := mgr.GetCache().List(ctx, cms, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if err := mgr.GetCache().List(ctx, pods, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var typed corev1.PodList
	if err := mgr.GetCache().List(ctx, &typed, client.InNamespace(ns)); err == nil {
		t.Errorf("a typed pod list through the cache was served (%d pods): it must be refused, not start an informer of whole pods", len(typed.Items))
	}
	for _, cm := range cms.Items {
		if cm.Labels[act.LabelType] != act.TypeNative {
			t.Errorf("ConfigMap %s (labels %v) is in the operator's cache", cm.Name, cm.Labels)
		}
	}
	checkCachedPods(ctx, t, mgr.GetCache(), pods.Items)
	if len(cms.Items) == 0 || len(pods.Items) == 0 {
		t.Errorf("cache holds %d ConfigMaps and %d Pods: the operator's own are missing", len(cms.Items), len(pods.Items))
	}
	var got appsv1.Deployment
	if err := c.Get(ctx, client.ObjectKeyFromObject(foreign), &got); err != nil || len(got.OwnerReferences) != 0 || got.Labels["team"] != "other" {
		t.Errorf("the foreign Deployment was changed or deleted: %v, owners %v, labels %v", err, got.OwnerReferences, got.Labels)
	}
}

// checkCachedPods: the cached pods are the operator's, as metadata without managedFields,
// and the app index finds the pods of the "basic" deployment.
func checkCachedPods(ctx context.Context, t *testing.T, c client.Reader, pods []metav1.PartialObjectMetadata) {
	t.Helper()
	for _, p := range pods {
		if p.Labels[act.LabelManagedBy] != act.ManagedBy {
			t.Errorf("Pod %s (labels %v) is in the operator's cache", p.Name, p.Labels)
		}
		if len(p.ManagedFields) > 0 {
			t.Errorf("Pod %s is cached with %d managedFields entries", p.Name, len(p.ManagedFields))
		}
	}
	jm := act.PodMetadataList()
	if err := c.List(ctx, jm, client.InNamespace(ns), client.MatchingFields{act.IndexApp: "basic"}); err != nil || len(jm.Items) == 0 {
		t.Errorf("the cache's %s index lists %d pods of basic (%v)", act.IndexApp, len(jm.Items), err)
	}
}
