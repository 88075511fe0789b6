package controller_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/controller"
	"github.com/flinkop/flinkop/operator/cron"
)

// cronTemplate is a batch job (1000 records at 100/s: it finishes in ~10s) scheduled every
// hour on the hour.
func cronTemplate(name string, mods ...func(*flinkv1beta1.FlinkDeployment)) *flinkv1beta1.FlinkDeployment {
	d := deployment(name, flinkv1beta1.UpgradeModeStateless, func(d *flinkv1beta1.FlinkDeployment) {
		d.Annotations = map[string]string{cron.AnnotationSchedule: "0 * * * *"}
		d.Spec.FlinkConfiguration.Set("execution.runtime-mode", "BATCH")
		d.Spec.FlinkConfiguration.Set("fakeflink.job.records", "1000")
	})
	for _, m := range mods {
		m(d)
	}
	return d
}

// stepAll reconciles every FlinkDeployment of the namespace once, lets the pod simulator catch
// up and advances the clock by a second.
func (e *env) stepAll() {
	e.t.Helper()
	var list flinkv1beta1.FlinkDeploymentList
	if err := e.client.List(e.ctx, &list, client.InNamespace(ns)); err != nil {
		e.t.Fatal(err)
	}
	for _, d := range list.Items {
		_, _ = e.r.Reconcile(e.ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: d.Name}})
	}
	e.drainEvents()
	if err := e.sim.Sync(e.ctx); err != nil {
		e.t.Fatalf("pod simulator: %v", err)
	}
	e.clock.Step(time.Second)
	e.sim.Tick()
}

// runUntil steps everything until at: by the second, except that while every deployment is
// stable the clock jumps 10s at a time (never past a fire time).
func (e *env) runUntil(at time.Time) {
	e.t.Helper()
	for e.clock.Now().Before(at) {
		e.stepAll()
		if next, idle := e.idleUntil(at); idle && next.After(e.clock.Now()) {
			e.clock.SetTime(next)
			e.sim.Tick()
		}
	}
	e.stepAll()
}

// idleUntil reports whether every deployment is stable and not being deleted, and the
// earliest next fire time of a template (at most until).
func (e *env) idleUntil(until time.Time) (time.Time, bool) {
	var list flinkv1beta1.FlinkDeploymentList
	if err := e.client.List(e.ctx, &list, client.InNamespace(ns)); err != nil {
		e.t.Fatal(err)
	}
	next := until
	for _, d := range list.Items {
		if d.DeletionTimestamp != nil || d.Status.LifecycleState != flinkv1beta1.LifecycleStable {
			return next, false
		}
		if limit := e.clock.Now().Add(10 * time.Second); limit.Before(next) {
			next = limit
		}
		if c := d.Status.Cron; c != nil && c.NextScheduleTime != nil && c.NextScheduleTime.Time.Before(next) {
			next = c.NextScheduleTime.Time
		}
	}
	return next, true
}

// runs lists a template's runs by name.
func (e *env) runs(template string) []flinkv1beta1.FlinkDeployment {
	e.t.Helper()
	var list flinkv1beta1.FlinkDeploymentList
	if err := e.client.List(e.ctx, &list, client.InNamespace(ns), client.MatchingLabels{cron.LabelTemplate: template}); err != nil {
		e.t.Fatal(err)
	}
	return list.Items
}

func (e *env) countEvents(substr string) int {
	n := 0
	for _, ev := range e.events {
		if strings.Contains(ev, substr) {
			n++
		}
	}
	return n
}

func TestCronTemplateRunsEachFireAndCleansUpThePreviousRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	start := e.clock.Now() // 12:00:00
	e.create(cronTemplate("nightly"))
	e.runUntil(start.Add(59 * time.Minute))
	if runs := e.runs("nightly"); len(runs) != 0 {
		t.Fatalf("runs before the first fire time: %v", runs)
	}
	tpl := e.get("nightly")
	if tpl.Status.JobStatus.State != flinkv1beta1.JobStatusCronScheduled || tpl.Status.Cron == nil ||
		!tpl.Status.Cron.NextScheduleTime.Time.Equal(start.Add(time.Hour)) {
		t.Fatalf("template status %+v", tpl.Status)
	}
	if tpl.Status.JobManagerDeploymentStatus != "" || e.jmGeneration("nightly") != "missing" {
		t.Errorf("the template deployed a cluster of its own")
	}

	e.runUntil(start.Add(time.Hour + 40*time.Second))
	runs := e.runs("nightly")
	if len(runs) != 1 || runs[0].Name != "nightly-05011300" {
		t.Fatalf("runs after the 13:00 fire: %v", names(runs))
	}
	if got := runs[0].Status.JobStatus.State; got != flinkv1beta1.JobStatusFinished {
		t.Errorf("the run's batch job is %s, want FINISHED", got)
	}
	tpl = e.get("nightly")
	if c := tpl.Status.Cron; c.LastRun != "nightly-05011300" || c.LastRunState != flinkv1beta1.JobStatusFinished || len(c.Active) != 0 {
		t.Errorf("cron status %+v", c)
	}

	e.runUntil(start.Add(2*time.Hour + 40*time.Second))
	if runs := e.runs("nightly"); len(runs) != 1 || runs[0].Name != "nightly-05011400" {
		t.Fatalf("runs after the 14:00 fire: %v", names(runs))
	}
	if e.jmGeneration("nightly-05011300") != "missing" {
		t.Error("the previous run's cluster is still there")
	}
	for _, want := range []string{
		"Normal CronRun Submitting run nightly-05011300", "Normal Cleanup Cleaning up the previous run nightly-05011300",
		"Normal CronRun Submitting run nightly-05011400", "Normal CronRunEnded Run nightly-05011300 ended: FINISHED",
	} {
		if e.countEvents(want) != 1 {
			t.Errorf("%d events %q, want 1:\n%s", e.countEvents(want), want, strings.Join(e.events, "\n"))
		}
	}
}

func TestCronTemplateSurvivesAnOperatorRestartWithoutSkippingOrRepeating(t *testing.T) {
	e := newEnv(t)
	start := e.clock.Now()
	e.create(cronTemplate("hourly"))
	e.runUntil(start.Add(30 * time.Minute))
	// The operator is down from 12:30 to 15:10: the 13:00, 14:00 and 15:00 fires are missed.
	e.clock.Step(2*time.Hour + 40*time.Minute)
	e.r = rebuild(e) // a new operator: nothing in memory
	e.runUntil(e.clock.Now().Add(time.Minute))
	runs := e.runs("hourly")
	if len(runs) != 1 || runs[0].Name != "hourly-05011500" {
		t.Fatalf("after the restart: runs %v, want only the latest missed fire's", names(runs))
	}
	if e.countEvents("Warning CronMissed 2 fire time(s) from 2026-05-01T13:00:00Z to before 2026-05-01T15:00:00Z") != 1 {
		t.Errorf("no single CronMissed warning for the two older fires:\n%s", strings.Join(e.events, "\n"))
	}
	// Another restart right after: the 15:00 run is not started again.
	e.r = rebuild(e)
	e.runUntil(e.clock.Now().Add(10 * time.Minute))
	if n := e.countEvents("CronRun Submitting run hourly-05011500"); n != 1 {
		t.Errorf("the 15:00 run was submitted %d times", n)
	}
}

func TestCronTemplateForbidSkipsAFireWhileARunIsActive(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	start := e.clock.Now()
	// A streaming job never ends: the 14:00 fire finds the 13:00 run active.
	e.create(cronTemplate("stream", func(d *flinkv1beta1.FlinkDeployment) {
		d.Spec.FlinkConfiguration.Set("execution.runtime-mode", "STREAMING")
		d.Spec.FlinkConfiguration.Set("fakeflink.job.records", "0")
	}))
	e.runUntil(start.Add(2*time.Hour + 10*time.Second))
	if runs := e.runs("stream"); len(runs) != 1 || runs[0].Name != "stream-05011300" {
		t.Fatalf("runs %v, want only 13:00's", names(runs))
	}
	if e.countEvents("Warning CronSkipped Fire time 2026-05-01T14:00:00Z skipped: run stream-05011300 is still active") != 1 {
		t.Errorf("no CronSkipped warning:\n%s", strings.Join(e.events, "\n"))
	}
}

func TestCronTemplateErrorsAndDeletion(t *testing.T) {
	e := newEnv(t)
	e.create(cronTemplate("bad", func(d *flinkv1beta1.FlinkDeployment) { d.Annotations[cron.AnnotationSchedule] = "61 * * * *" }))
	e.stepAll()
	if d := e.get("bad"); !strings.Contains(flinkv1beta1.ErrorMessage(d.Status.Error), "is not a cron expression") || d.Status.LifecycleState != flinkv1beta1.LifecycleFailed {
		t.Errorf("bad expression: error %q, lifecycle %s", flinkv1beta1.ErrorMessage(d.Status.Error), d.Status.LifecycleState)
	}
	if !e.hasEvent("Warning InvalidCron") {
		t.Errorf("no InvalidCron warning: %v", e.events)
	}

	// A fresh world for deletion: the failed template above would keep runUntil stepping by
	// the second through the whole hour.
	e = newEnv(t)
	start := e.clock.Now()
	e.create(cronTemplate("gone"))
	e.runUntil(start.Add(time.Hour + 5*time.Second))
	if len(e.runs("gone")) != 1 {
		t.Fatalf("no run started: %v", e.events)
	}
	if err := e.client.Delete(e.ctx, e.get("gone")); err != nil {
		t.Fatal(err)
	}
	e.runUntil(e.clock.Now().Add(30 * time.Second))
	var left flinkv1beta1.FlinkDeploymentList
	_ = e.client.List(e.ctx, &left, client.InNamespace(ns))
	for _, d := range left.Items {
		if strings.HasPrefix(d.Name, "gone") {
			t.Errorf("%s is left after its template was deleted", d.Name)
		}
	}
}

func TestCronAnnotationOnARunningDeploymentIsIgnoredWithAWarning(t *testing.T) {
	e := newEnv(t)
	e.createRunning(deployment("app", flinkv1beta1.UpgradeModeStateless))
	d := e.get("app")
	d.Annotations = map[string]string{cron.AnnotationSchedule: "0 * * * *"}
	if err := e.client.Update(e.ctx, d); err != nil {
		t.Fatal(err)
	}
	e.step("app")
	got := e.get("app")
	if !strings.Contains(flinkv1beta1.ErrorMessage(got.Status.Error), "is ignored") || got.Status.JobStatus.State != flinkv1beta1.JobStatusRunning {
		t.Errorf("error %q, job %s: want the annotation ignored with an error and the job still running", flinkv1beta1.ErrorMessage(got.Status.Error), got.Status.JobStatus.State)
	}
}

// rebuild returns a fresh reconciler on the env's API, pods and clock, as an operator restart
// would.
func rebuild(e *env) *controller.FlinkDeploymentReconciler {
	return controller.Setup{Live: e.r.Options, Transport: e.sim, Clock: e.clock}.Reconciler(e.client, e.rec)
}

func names(ds []flinkv1beta1.FlinkDeployment) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Name)
	}
	slices.Sort(out)
	return out
}
