package controller_test

import (
	"context"
	"math/rand"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/harness"
	"github.com/flinkop/flinkop/harness/envtest"
	"github.com/flinkop/flinkop/harness/fixtures"
	"github.com/flinkop/flinkop/harness/podsim"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/controller"
)

// env is a fake Kubernetes API, the pod simulator with fakeflink behind it, and the real
// reconciler, driven step by step on a fake clock.
type env struct {
	t      *testing.T
	ctx    context.Context
	clock  *clocktesting.FakeClock
	client client.Client
	sim    *podsim.Sim
	rec    *record.FakeRecorder
	r      *controller.FlinkDeploymentReconciler
	events []string
}

const ns = "flink"

func newEnv(t *testing.T) *env {
	t.Helper()
	scheme, err := envtest.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(scheme).
		WithStatusSubresource(&flinkv1beta1.FlinkDeployment{}, &flinkv1beta1.FlinkSessionJob{}, &flinkv1beta1.FlinkStateSnapshot{}, &appsv1.Deployment{}, &corev1.Pod{}).Build()
	clk := clocktesting.NewFakeClock(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
	sim := podsim.New(c, clk, rand.New(rand.NewSource(42)))
	opts := config.Defaults()
	opts.ProgressCheckInterval = 2 * time.Second
	opts.ReconcileInterval = 30 * time.Second
	rec := record.NewFakeRecorder(1000)
	opts.FlinkClientTimeout = time.Second
	// The reconciler reads what its cache would hold, and past it through APIReader; the
	// simulator and the test read whole.
	r := controller.Setup{Options: opts, Transport: sim, Clock: clk, APIReader: c}.Reconciler(harness.CacheView(c), rec)
	return &env{t: t, ctx: context.Background(), clock: clk, client: c, sim: sim, rec: rec, r: r}
}

// deployment is a valid application deployment with checkpoints every 10s, changed by mods.
func deployment(name string, mode flinkv1beta1.UpgradeMode, mods ...func(*flinkv1beta1.FlinkDeployment)) *flinkv1beta1.FlinkDeployment {
	d := fixtures.StatefulDeployment(ns, name, mode)
	d.UID, d.Generation = types.UID("uid-"+name), 1
	for _, m := range mods {
		m(d)
	}
	return d
}

func (e *env) create(d *flinkv1beta1.FlinkDeployment) {
	e.t.Helper()
	if err := e.client.Create(e.ctx, d); err != nil {
		e.t.Fatal(err)
	}
}

// createRunning creates d and steps until its job runs on a ready cluster (generation 1).
func (e *env) createRunning(d *flinkv1beta1.FlinkDeployment) {
	e.t.Helper()
	e.create(d)
	e.until(d.Name, 20, "running", running(1))
}

func (e *env) get(name string) *flinkv1beta1.FlinkDeployment {
	e.t.Helper()
	var d flinkv1beta1.FlinkDeployment
	if err := e.client.Get(e.ctx, client.ObjectKey{Namespace: ns, Name: name}, &d); err != nil {
		e.t.Fatal(err)
	}
	return &d
}

// update changes the spec as kubectl would: the generation goes up.
func (e *env) update(name string, mod func(*flinkv1beta1.FlinkDeployment)) {
	e.t.Helper()
	d := e.get(name)
	mod(d)
	d.Generation++
	if err := e.client.Update(e.ctx, d); err != nil {
		e.t.Fatal(err)
	}
}

// step reconciles once, lets the pod simulator catch up and advances the clock to the
// requested requeue (at most 10s), ticking the Flink clusters.
func (e *env) step(name string) {
	e.t.Helper()
	res, err := e.r.Reconcile(e.ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}})
	e.drainEvents()
	if err := e.sim.Sync(e.ctx); err != nil {
		e.t.Fatalf("pod simulator: %v", err)
	}
	wait := res.RequeueAfter
	if err != nil || wait <= 0 || wait > 10*time.Second {
		wait = time.Second
		if err == nil && res.RequeueAfter > 10*time.Second {
			wait = 10 * time.Second
		}
	}
	for end := e.clock.Now().Add(wait); e.clock.Now().Before(end); {
		e.clock.Step(time.Second)
		e.sim.Tick()
	}
}

func (e *env) drainEvents() {
	for {
		select {
		case ev := <-e.rec.Events:
			e.events = append(e.events, ev)
		default:
			return
		}
	}
}

// until steps until cond holds for the resource, failing after max steps.
func (e *env) until(name string, max int, what string, cond func(d *flinkv1beta1.FlinkDeployment) bool) *flinkv1beta1.FlinkDeployment {
	e.t.Helper()
	for range max {
		e.step(name)
		if d := e.get(name); cond(d) {
			return d
		}
	}
	d := e.get(name)
	e.t.Fatalf("after %d steps: not %s\nstatus: %+v\nevents:\n  %s", max, what, d.Status, strings.Join(e.events, "\n  "))
	return nil
}

// advance lets virtual time pass while reconciling.
func (e *env) advance(name string, d time.Duration) {
	e.t.Helper()
	for end := e.clock.Now().Add(d); e.clock.Now().Before(end); {
		e.step(name)
	}
}

func running(gen int64) func(d *flinkv1beta1.FlinkDeployment) bool {
	return func(d *flinkv1beta1.FlinkDeployment) bool {
		return d.Status.JobStatus.State == flinkv1beta1.JobStatusRunning && d.Status.LifecycleState == flinkv1beta1.LifecycleStable &&
			d.Status.ObservedGeneration == gen
	}
}

func (e *env) cluster(name string) *fakeflink.Cluster {
	e.t.Helper()
	c := e.sim.Cluster(ns, name)
	if c == nil {
		e.t.Fatalf("no fakeflink cluster for %s", name)
	}
	return c
}

// lastStart is the newest job start on the resource's cluster.
func (e *env) lastStart(name string) fakeflink.JobStart {
	e.t.Helper()
	starts := e.cluster(name).Starts()
	if len(starts) == 0 {
		e.t.Fatalf("no job started on %s", name)
	}
	return starts[len(starts)-1]
}

func (e *env) hasEvent(substr string) bool {
	for _, ev := range e.events {
		if strings.Contains(ev, substr) {
			return true
		}
	}
	return false
}

// jmGeneration is the generation annotation of the resource's JobManager Deployment, or
// "missing".
func (e *env) jmGeneration(name string) string { return e.jmAnnotation(name, act.AnnotationGeneration) }

// jmRun is the job-run annotation of the resource's JobManager Deployment, or "missing".
func (e *env) jmRun(name string) string { return e.jmAnnotation(name, act.AnnotationRun) }

func (e *env) jmAnnotation(name, key string) string {
	e.t.Helper()
	var dep appsv1.Deployment
	if err := e.client.Get(e.ctx, client.ObjectKey{Namespace: ns, Name: act.JobManagerName(name)}, &dep); err != nil {
		return "missing"
	}
	return dep.Annotations[key]
}
