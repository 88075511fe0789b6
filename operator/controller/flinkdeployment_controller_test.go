package controller_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/controller"
)

func TestDeployReachesRunning(t *testing.T) {
	e := newEnv(t)
	e.create(deployment("basic", flinkv1beta1.UpgradeModeStateless))
	d := e.until("basic", 20, "running and stable", running(1))

	if d.Status.JobManagerDeploymentStatus != flinkv1beta1.JobManagerReady {
		t.Errorf("JobManager status %s, want READY", d.Status.JobManagerDeploymentStatus)
	}
	if d.Status.ReconciliationStatus.LastStableSpec != d.Status.ReconciliationStatus.LastReconciledSpec {
		t.Error("the running spec was not recorded as stable")
	}
	if !controllerContainsFinalizer(d) {
		t.Error("no finalizer")
	}
	// Native mode (the default): no TaskManager Deployment; Flink's resource manager made one
	// TaskManager pod (parallelism 2, 2 slots), owned by the JobManager Deployment.
	var tm appsv1.Deployment
	if err := e.client.Get(e.ctx, client.ObjectKey{Namespace: ns, Name: act.TaskManagerName("basic")}, &tm); !apierrors.IsNotFound(err) {
		t.Errorf("TaskManager deployment: %v, want none in native mode", err)
	}
	var pods corev1.PodList
	if err := e.client.List(e.ctx, &pods, client.InNamespace(ns), client.MatchingLabels{"app": "basic", "component": "taskmanager", "type": "flink-native-kubernetes"}); err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 1 || metav1.GetControllerOf(&pods.Items[0]) == nil || metav1.GetControllerOf(&pods.Items[0]).Name != "basic" {
		t.Errorf("TaskManager pods %+v, want 1 owned by the JobManager Deployment", pods.Items)
	}
	for _, want := range []string{"Normal Submit", "Normal Deploy", "JobStatusChanged"} {
		if !e.hasEvent(want) {
			t.Errorf("no %q event in %v", want, e.events)
		}
	}
	if flinkv1beta1.ErrorMessage(d.Status.Error) != "" {
		t.Errorf("status.error = %q", flinkv1beta1.ErrorMessage(d.Status.Error))
	}
}

func controllerContainsFinalizer(d *flinkv1beta1.FlinkDeployment) bool {
	for _, f := range d.Finalizers {
		if f == controller.Finalizer {
			return true
		}
	}
	return false
}

func TestSessionClusterBecomesReady(t *testing.T) {
	e := newEnv(t)
	d := deployment("session", flinkv1beta1.UpgradeModeStateless)
	d.Spec.Job = nil
	e.create(d)
	got := e.until("session", 20, "stable", func(d *flinkv1beta1.FlinkDeployment) bool {
		return d.Status.LifecycleState == flinkv1beta1.LifecycleStable && d.Status.JobManagerDeploymentStatus == flinkv1beta1.JobManagerReady
	})
	if got.Status.JobStatus.State != "" {
		t.Errorf("a session cluster reports job state %s", got.Status.JobStatus.State)
	}
	if c := e.cluster("session"); c.Spec().Application != nil {
		t.Error("the session cluster was started in application mode")
	}
}
