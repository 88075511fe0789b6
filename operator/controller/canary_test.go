package controller_test

import (
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/controller"
)

// TestCanaryShowsAStuckLoop: a canary FlinkDeployment runs nothing; the operator changes its
// restartNonce every tick, and /healthz fails when a tick finds the last change unreconciled,
// and passes again once a reconcile sees the newest one.
func TestCanaryShowsAStuckLoop(t *testing.T) {
	e := newEnv(t)
	canaries := &controller.Canaries{
		Client: e.client, Reader: e.client, Clock: clocktesting.NewFakeClock(e.clock.Now()),
		Timeout: func() time.Duration { return time.Minute },
	}
	e.r.Canaries = canaries
	d := deployment("canary", flinkv1beta1.UpgradeModeStateless, func(d *flinkv1beta1.FlinkDeployment) {
		d.Labels = map[string]string{flinkv1beta1.CanaryLabel: "true"}
	})
	e.create(d)
	e.step("canary")
	got := e.get("canary")
	if len(got.Finalizers) > 0 || got.Status.LifecycleState != "" || len(e.sim.LiveJobManagers()) > 0 {
		t.Fatalf("a canary was acted on: finalizers %v, lifecycle %q, JobManagers %v", got.Finalizers, got.Status.LifecycleState, e.sim.LiveJobManagers())
	}
	if err := canaries.Check(nil); err != nil {
		t.Fatalf("healthy canary: %v", err)
	}

	canaries.Tick(e.ctx) // changes it: restartNonce 1, generation 2 expected
	if n := e.get("canary").Spec.RestartNonce; n == nil || *n != 1 {
		t.Fatalf("restartNonce after the first change: %v, want 1", n)
	}
	canaries.Tick(e.ctx) // no reconcile saw generation 2: the loop is stuck
	if err := canaries.Check(nil); err == nil {
		t.Fatal("a canary whose change nobody reconciled passes the health check")
	}

	seen := e.get("canary")
	seen.Generation = 3 // what the API server gives the second change (the fake client does not count)
	canaries.Reconciled(flinkv1beta1.JobKindDeployment, seen)
	canaries.Tick(e.ctx)
	if err := canaries.Check(nil); err != nil {
		t.Errorf("the canary was reconciled again, still unhealthy: %v", err)
	}

	if err := e.client.Delete(e.ctx, seen); err != nil {
		t.Fatal(err)
	}
	e.step("canary") // gone: forgotten
	canaries.Tick(e.ctx)
	if err := canaries.Check(nil); err != nil {
		t.Errorf("a deleted canary still counts: %v", err)
	}
	// A tenant takes the label off after the operator's change, before a reconcile saw it:
	// the canary is dropped, not left failing the probe for good.
	e.create(deployment("canary2", flinkv1beta1.UpgradeModeStateless, func(d *flinkv1beta1.FlinkDeployment) {
		d.Labels = map[string]string{flinkv1beta1.CanaryLabel: "TRUE"}
	}))
	e.step("canary2")
	canaries.Tick(e.ctx)
	unlabelled := e.get("canary2")
	unlabelled.Labels = nil
	if err := e.client.Update(e.ctx, unlabelled); err != nil {
		t.Fatal(err)
	}
	canaries.Tick(e.ctx) // judged unreconciled, then found no longer a canary
	canaries.Tick(e.ctx)
	if err := canaries.Check(nil); err != nil {
		t.Errorf("a resource that is no longer a canary still fails the probe: %v", err)
	}

	var nilCanaries *controller.Canaries
	nilCanaries.Reconciled(flinkv1beta1.JobKindDeployment, seen)
	if err := nilCanaries.Check(nil); err != nil {
		t.Error(err)
	}
}
