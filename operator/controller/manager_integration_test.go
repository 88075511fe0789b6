//go:build integration

package controller_test

import (
	"context"
	"math/rand"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/flinkop/flinkop/harness/envtest"
	"github.com/flinkop/flinkop/harness/podsim"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/controller"
)

// TestManagerAgainstAPIServer runs the wired manager against a real kube-apiserver; the pod
// simulator plays kubelet (Deployment status, pods) and runs fakeflink behind the JobManager.
// A FlinkDeployment reaches RUNNING, then deletion cleans up and releases the finalizer.
func TestManagerAgainstAPIServer(t *testing.T) {
	ctx, c, sim := startManager(t)

	d := deployment("basic", flinkv1beta1.UpgradeModeStateless)
	d.UID, d.Generation = "", 0
	if err := c.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKeyFromObject(d)
	waitFor(t, sim, 60*time.Second, "RUNNING and STABLE", func() bool {
		var got flinkv1beta1.FlinkDeployment
		return c.Get(ctx, key, &got) == nil && got.Status.JobStatus.State == flinkv1beta1.JobStatusRunning &&
			got.Status.LifecycleState == flinkv1beta1.LifecycleStable &&
			got.Status.JobManagerDeploymentStatus == flinkv1beta1.JobManagerReady
	})
	// Its Events are core/v1 Events of the operator's bounded recorder.
	waitFor(t, sim, 30*time.Second, "an Event of flinkop about it", func() bool {
		var events corev1.EventList
		_ = c.List(ctx, &events, client.InNamespace(ns))
		for _, e := range events.Items {
			if e.InvolvedObject.Name == d.Name && e.Source.Component == controller.EventSource && e.ReportingController == controller.EventSource {
				return true
			}
		}
		return false
	})

	if err := c.Delete(ctx, d); err != nil {
		t.Fatal(err)
	}
	waitFor(t, sim, 60*time.Second, "deleted with nothing left", func() bool {
		var got flinkv1beta1.FlinkDeployment
		var deps appsv1.DeploymentList
		_ = c.List(ctx, &deps, client.InNamespace(ns))
		return apierrors.IsNotFound(c.Get(ctx, key, &got)) && len(deps.Items) == 0
	})
}

// TestManagerRunsSessionJobs runs both wired controllers against a real kube-apiserver: a
// session job on a session cluster reaches RUNNING, then deleting the cluster and the job at
// once removes both (the cluster waits for the job, whose finalizer cancels it first).
func TestManagerRunsSessionJobs(t *testing.T) {
	ctx, c, sim := startManager(t)

	d := sessionCluster("sess")
	d.UID, d.Generation = "", 0
	d.Spec.FlinkConfiguration.Set("fakeflink.session.jars", "job.jar")
	j := sessionJob("etl", "sess", flinkv1beta1.UpgradeModeStateless, func(j *flinkv1beta1.FlinkSessionJob) {
		j.UID, j.Generation = "", 0
		j.Spec.Job.JarURI = "local:///opt/flink/usrlib/job.jar"
	})
	for _, o := range []client.Object{j, d} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, sim, 60*time.Second, "the session job RUNNING", func() bool {
		var got flinkv1beta1.FlinkSessionJob
		return c.Get(ctx, client.ObjectKeyFromObject(j), &got) == nil && got.Status.JobStatus.State == flinkv1beta1.JobStatusRunning &&
			got.Status.LifecycleState == flinkv1beta1.LifecycleStable
	})
	for _, o := range []client.Object{d, j} {
		if err := c.Delete(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, sim, 60*time.Second, "both deleted", func() bool {
		var gotJob flinkv1beta1.FlinkSessionJob
		var gotCluster flinkv1beta1.FlinkDeployment
		return apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(j), &gotJob)) &&
			apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(d), &gotCluster))
	})
}

// startManager starts a real kube-apiserver and the manager with both controllers wired as
// cmd/flink-operator wires them; the pod simulator plays kubelet. Everything stops with the
// test.
func startManager(t *testing.T) (context.Context, client.Client, *podsim.Sim) {
	t.Helper()
	ctx, c, sim, _ := startManagerWith(t, nil)
	return ctx, c, sim
}

// startManagerWith starts the manager wired as cmd/flink-operator wires it (its cache
// options included) after before ran against the fresh API server; it returns the manager too.
func startManagerWith(t *testing.T, before func(context.Context, client.Client)) (context.Context, client.Client, *podsim.Sim, ctrl.Manager) {
	t.Helper()
	ctx, env := startAPIServer(t)
	c := env.Client
	if before != nil {
		before(ctx, c)
	}
	sim := podsim.New(c, clock.RealClock{}, rand.New(rand.NewSource(1)))
	skip := true // each test starts a manager with the same controller names
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme: env.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: ctrlconfig.Controller{SkipNameValidation: &skip}, Cache: controller.CacheOptions(nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	opts := config.Defaults()
	opts.ProgressCheckInterval = 500 * time.Millisecond
	setup := controller.Setup{Options: opts, Transport: sim}
	if err := setup.NewFlinkDeploymentReconciler(mgr).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	if err := setup.NewFlinkSessionJobReconciler(mgr).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	go func() { _ = mgr.Start(ctx) }()
	return ctx, c, sim, mgr
}

// waitFor syncs the pod simulator until cond holds, polling with a bound.
func waitFor(t *testing.T, sim *podsim.Sim, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, limit, true, func(ctx context.Context) (bool, error) {
		if err := sim.Sync(ctx); err != nil && !apierrors.IsConflict(err) {
			t.Logf("pod simulator: %v", err)
		}
		sim.Tick()
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("not %s within %s: %v", what, limit, err)
	}
}

// startAPIServer starts a real kube-apiserver with the test namespace; both stop with the
// test.
func startAPIServer(t *testing.T) (context.Context, *envtest.Env) {
	t.Helper()
	env, err := envtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	return ctx, env
}
