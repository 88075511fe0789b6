package controller_test

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// deleteAndWait deletes the FlinkDeployment and steps until it is gone.
func (e *env) deleteAndWait(name string) {
	e.t.Helper()
	if err := e.client.Delete(e.ctx, e.get(name)); err != nil {
		e.t.Fatal(err)
	}
	for range 30 {
		e.step(name)
		var d flinkv1beta1.FlinkDeployment
		if err := e.client.Get(e.ctx, client.ObjectKey{Namespace: ns, Name: name}, &d); apierrors.IsNotFound(err) {
			return
		}
	}
	e.t.Fatalf("%s was never deleted", name)
}

func hasError(substr string) func(d *flinkv1beta1.FlinkDeployment) bool {
	return func(d *flinkv1beta1.FlinkDeployment) bool {
		return strings.Contains(flinkv1beta1.ErrorMessage(d.Status.Error), substr)
	}
}

// A FlinkDeployment named like an existing Deployment it does not own reports an error and
// neither changes, adopts nor deletes it.
func TestForeignObjectIsNeverTakenOver(t *testing.T) {
	e := newEnv(t)
	one := int32(1)
	foreign := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "taken", Namespace: ns, Labels: map[string]string{"team": "other"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "other"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"team": "other"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	}
	if err := e.client.Create(e.ctx, foreign); err != nil {
		t.Fatal(err)
	}
	e.create(deployment("taken", flinkv1beta1.UpgradeModeStateless))
	e.until("taken", 10, "reporting the foreign Deployment", hasError("is not controlled by this resource"))
	if !e.hasEvent("Warning") {
		t.Errorf("no Warning event in %v", e.events)
	}
	e.deleteAndWait("taken")
	var got appsv1.Deployment
	if err := e.client.Get(e.ctx, client.ObjectKeyFromObject(foreign), &got); err != nil {
		t.Fatalf("the foreign Deployment was deleted: %v", err)
	}
	if got.Labels["team"] != "other" || len(got.OwnerReferences) != 0 || got.Spec.Template.Spec.Containers[0].Image != "nginx" {
		t.Errorf("the foreign Deployment was changed: labels %v, owners %v", got.Labels, got.OwnerReferences)
	}
}

// FlinkDeployments "coll" and "coll-rest" would meet at Service coll-rest (coll's REST
// Service, coll-rest's internal one): the name coll-rest is refused, and deleting it leaves
// coll's Service alone. (A clash with an object of another kind of owner is the test above.)
func TestCollidingNamesDoNotFight(t *testing.T) {
	e := newEnv(t)
	e.createRunning(deployment("coll", flinkv1beta1.UpgradeModeStateless))
	e.create(deployment("coll-rest", flinkv1beta1.UpgradeModeStateless))
	e.until("coll-rest", 10, "refusing the name", hasError(`must not end in "-rest"`))
	e.deleteAndWait("coll-rest")
	var svc corev1.Service
	if err := e.client.Get(e.ctx, client.ObjectKey{Namespace: ns, Name: act.RESTServiceName("coll")}, &svc); err != nil {
		t.Fatalf("coll's REST Service was deleted with coll-rest: %v", err)
	}
	if ref := metav1.GetControllerOf(&svc); ref == nil || ref.Name != "coll" {
		t.Errorf("coll's REST Service is controlled by %v", ref)
	}
	e.until("coll", 5, "still running", running(1))
}

// Another Flink cluster in the namespace keeps HA metadata under the cluster id "orders". A
// FlinkDeployment "orders" (next to that cluster's Deployment, or not) never deploys a first
// JobManager that would join it, and its deletion leaves that metadata alone. A JobManager
// finds its cluster's ConfigMap by name, so one without Flink's labels (which the manager's
// cache does not hold) counts too.
func TestForeignHAMetadataIsNeverTouched(t *testing.T) {
	flinks := map[string]string{"app": "orders", "type": "flink-native-kubernetes", "configmap-type": "high-availability"}
	for name, tc := range map[string]struct {
		labels         map[string]string
		withDeployment bool
	}{
		"alone":                  {labels: flinks},
		"next to its Deployment": {labels: flinks, withDeployment: true},
		"alone, unlabelled":      {},
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			ha := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
				Name: "orders-cluster-config-map", Namespace: ns, Labels: tc.labels,
			}, Data: map[string]string{"checkpointID-1": "theirs"}}
			if err := e.client.Create(e.ctx, ha); err != nil {
				t.Fatal(err)
			}
			if tc.withDeployment {
				one := int32(1)
				labels := map[string]string{"app": "orders-standalone"}
				dep := &appsv1.Deployment{
					ObjectMeta: metav1.ObjectMeta{Name: "orders", Namespace: ns},
					Spec: appsv1.DeploymentSpec{
						Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: labels},
						Template: corev1.PodTemplateSpec{
							ObjectMeta: metav1.ObjectMeta{Labels: labels},
							Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "jobmanager", Image: "flink:1.20"}}},
						},
					},
				}
				if err := e.client.Create(e.ctx, dep); err != nil {
					t.Fatal(err)
				}
			}
			e.create(deployment("orders", flinkv1beta1.UpgradeModeLastState))
			e.until("orders", 10, "refusing the deploy", hasError("is not controlled by this resource"))
			var cms corev1.ConfigMapList
			if err := e.client.List(e.ctx, &cms, client.InNamespace(ns)); err != nil || len(cms.Items) != 1 {
				t.Errorf("ConfigMaps %d (%v): want only the other cluster's HA metadata, nothing written", len(cms.Items), err)
			}
			e.deleteAndWait("orders")
			var got corev1.ConfigMap
			if err := e.client.Get(e.ctx, client.ObjectKeyFromObject(ha), &got); err != nil || got.Data["checkpointID-1"] != "theirs" {
				t.Errorf("the other cluster's HA metadata was deleted or changed: %v", err)
			}
		})
	}
}
