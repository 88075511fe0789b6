package harness

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/decide"
)

func savepointJob() *flinkv1beta1.FlinkDeployment {
	return fixtures.StatefulDeployment("", "job", flinkv1beta1.UpgradeModeSavepoint)
}

// stepUntil steps the world until cond holds, checking the invariants on the way.
func stepUntil(t *testing.T, w *World, c *Checker, what string, cond func(d *flinkv1beta1.FlinkDeployment) bool) []string {
	t.Helper()
	var violations []string
	for range 300 {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
		violations = append(violations, c.Check("job")...)
		if d, err := w.Get("job"); err == nil && cond(d) {
			return violations
		}
	}
	t.Fatalf("never %s\n%s", what, w.Trace)
	return nil
}

func runningGen(gen int64) func(d *flinkv1beta1.FlinkDeployment) bool {
	return func(d *flinkv1beta1.FlinkDeployment) bool {
		return d.Status.JobStatus.State == flinkv1beta1.JobStatusRunning && d.Status.ObservedGeneration == gen &&
			d.Status.ReconciliationStatus.State == flinkv1beta1.ReconciliationDeployed
	}
}

// TestCheckerCatchesStateRegression makes the operator restore an old savepoint (by
// tampering with its status mid-upgrade) and expects invariant 1 to fire; the same upgrade
// without tampering passes.
// runningSavepointJob is a checked world (seeded with seed) whose savepointJob runs.
func runningSavepointJob(t *testing.T, seed int64) (*World, *Checker, *flinkv1beta1.FlinkDeployment) {
	t.Helper()
	w, c := checkedWorld(t, seed)
	d := savepointJob()
	if err := w.Apply(d); err != nil {
		t.Fatal(err)
	}
	if v := stepUntil(t, w, c, "running", runningGen(1)); len(v) > 0 {
		t.Fatalf("violations on a plain deploy: %v", v)
	}
	return w, c, d
}

func TestCheckerCatchesStateRegression(t *testing.T) {
	for _, tamper := range []bool{false, true} {
		w, c, d := runningSavepointJob(t, 1)
		n := int64(1)
		d.Spec.Job.SavepointTriggerNonce = &n
		_ = w.Apply(d)
		var early string
		stepUntil(t, w, c, "savepoint taken", func(d *flinkv1beta1.FlinkDeployment) bool {
			sp := d.Status.JobStatus.SavepointInfo
			if sp != nil && sp.LastSavepoint != nil {
				early = sp.LastSavepoint.Location
			}
			return early != ""
		})
		_ = w.RunFor(time.Minute)
		p := int32(4)
		d.Spec.Job.Parallelism = &p
		_ = w.Apply(d)
		stepUntil(t, w, c, "upgrade savepoint taken", func(d *flinkv1beta1.FlinkDeployment) bool {
			return d.Status.JobStatus.UpgradeSavepointPath != "" && d.Status.JobStatus.UpgradeSavepointPath != early
		})
		if tamper {
			cur, _ := w.Get("job")
			cur.Status.JobStatus.UpgradeSavepointPath = early // a bug: restore an older savepoint
			if err := w.Client.Status().Update(context.Background(), cur); err != nil {
				t.Fatal(err)
			}
		}
		v := stepUntil(t, w, c, "running the upgrade", runningGen(3))
		found := len(v) > 0 && strings.Contains(strings.Join(v, "\n"), "invariant 1")
		if found != tamper {
			t.Errorf("tamper=%v: violations %v", tamper, v)
		}
	}
}

// TestCheckerCatchesErrorWithoutEvent writes a status.error no Warning event explains.
func TestCheckerCatchesErrorWithoutEvent(t *testing.T) {
	w, c := checkedWorld(t, 2)
	_ = w.Apply(savepointJob())
	stepUntil(t, w, c, "running", runningGen(1))
	cur, _ := w.Get("job")
	cur.Status.Error = decide.ErrorJSON("Nobody", "something nobody reported", config.DefaultExceptionOptions())
	if err := w.Client.Status().Update(context.Background(), cur); err != nil {
		t.Fatal(err)
	}
	v := c.Check("job")
	if len(v) != 1 || !strings.Contains(v[0], "has no Warning event (invariant 3)") {
		t.Errorf("violations %v, want one of invariant 3", v)
	}
}

// TestCheckerCatchesAPlainStatusError writes a FlinkDeployment's status.error as a plain
// message, with its Warning: Apache's JSON is what tools parse.
func TestCheckerCatchesAPlainStatusError(t *testing.T) {
	w, c := checkedWorld(t, 2)
	_ = w.Apply(savepointJob())
	stepUntil(t, w, c, "running", runningGen(1))
	cur, _ := w.Get("job")
	cur.Status.Error = "a plain message"
	if err := w.Client.Status().Update(context.Background(), cur); err != nil {
		t.Fatal(err)
	}
	w.events.events = append(w.events.events, Event{Object: "job", Type: "Warning", Reason: "Plain", Message: "a plain message"})
	v := c.Check("job")
	if len(v) != 1 || !strings.Contains(v[0], "is not Apache's JSON (invariant 3)") {
		t.Errorf("violations %v, want the plain error caught", v)
	}
}

// TestOperatorCrashBetweenWrites crashes the operator right after its k-th API write during a
// savepoint upgrade, for every k up to 8: the upgrade still completes from the savepoint, with
// no invariant violated and no second job or savepoint.
func TestOperatorCrashBetweenWrites(t *testing.T) {
	for k := 1; k <= 8; k++ {
		w, err := NewWorld(int64(k))
		if err != nil {
			t.Fatal(err)
		}
		c := NewChecker(w)
		d := savepointJob()
		_ = w.Apply(d)
		stepUntil(t, w, c, "running", runningGen(1))
		_ = w.RunFor(30 * time.Second)
		p := int32(4)
		d.Spec.Job.Parallelism = &p
		_ = w.Apply(d)
		w.CrashOperatorAfterWrite(k)
		if v := stepUntil(t, w, c, "running the upgrade", runningGen(2)); len(v) > 0 {
			t.Errorf("k=%d: violations %v\n%s", k, v, w.Trace)
		}
		if !strings.Contains(w.Trace.String(), "operator crashed") {
			t.Errorf("k=%d: the operator never crashed (fewer than %d writes?)", k, k)
		}
		cl := w.Sim.Cluster(w.Namespace, "job")
		if starts := cl.Starts(); len(starts) != 1 || starts[0].RestorePath == "" {
			t.Errorf("k=%d: starts on the new cluster %+v, want one start from the upgrade savepoint", k, starts)
		}
	}
}

// TestCheckerCatchesRollbackAndSecondJobManager breaks invariants 6 and 2 by hand: a rollback
// state on a resource that does not enable rollback, and a second JobManager Deployment for
// the same HA cluster id.
func TestCheckerCatchesRollbackAndSecondJobManager(t *testing.T) {
	cases := map[string]struct {
		tamper func(t *testing.T, w *World)
		want   string
	}{
		"untouched": {tamper: func(*testing.T, *World) {}},
		"rolled back without rollback.enabled": {tamper: func(t *testing.T, w *World) {
			t.Helper()
			d, _ := w.Get("job")
			d.Status.ReconciliationStatus.State = flinkv1beta1.ReconciliationRolledBack
			if err := w.Client.Status().Update(context.Background(), d); err != nil {
				t.Fatal(err)
			}
		}, want: "invariant 6"},
		"two JobManagers for one HA cluster id": {tamper: func(t *testing.T, w *World) {
			t.Helper()
			var dep appsv1.Deployment
			if err := w.Client.Get(context.Background(), client.ObjectKey{Namespace: w.Namespace, Name: "job"}, &dep); err != nil {
				t.Fatal(err)
			}
			twin := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Name: "job-twin", Labels: dep.Labels}, Spec: dep.Spec}
			if err := w.Client.Create(context.Background(), twin); err != nil {
				t.Fatal(err)
			}
			if err := w.Sim.Sync(context.Background()); err != nil {
				t.Fatal(err)
			}
		}, want: "invariant 2"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w, err := NewWorld(1)
			if err != nil {
				t.Fatal(err)
			}
			c := NewChecker(w)
			d := savepointJob()
			d.Spec.FlinkConfiguration.Set("high-availability.type", "kubernetes")
			d.Spec.FlinkConfiguration.Set("high-availability.storageDir", "file:///data/ha")
			_ = w.Apply(d)
			stepUntil(t, w, c, "running", runningGen(1))
			tc.tamper(t, w)
			got := strings.Join(c.Check("job"), "\n")
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("violations %q, want one naming %q", got, tc.want)
			}
		})
	}
}

// TestRunUntilQuiet: a fresh deployment is busy for its first seconds, so a short limit fails;
// given time it settles, and a quiet world then stays quiet (no operator write during the
// quiet window).
func TestRunUntilQuiet(t *testing.T) {
	w, err := NewWorld(1)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Apply(savepointJob()); err != nil {
		t.Fatal(err)
	}
	if err := w.RunUntilQuiet(time.Minute, 2*time.Second); err == nil {
		t.Fatal("a deployment that is still starting was called quiet within 2s")
	}
	if err := w.RunUntilQuiet(time.Minute, 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	d, _ := w.Get("job")
	if d.Status.JobStatus.State != flinkv1beta1.JobStatusRunning {
		t.Errorf("quiet with the job %s, want RUNNING", d.Status.JobStatus.State)
	}
	rv := d.ResourceVersion
	if err := w.RunUntilQuiet(time.Minute, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	if d, _ := w.Get("job"); d.ResourceVersion != rv {
		t.Errorf("a quiet world wrote the resource (resourceVersion %s → %s)", rv, d.ResourceVersion)
	}
}

// TestCheckerCatchesOversizedEvent: the world's recorder rejects an Event over the API limit,
// as the API server does, and the checker reports it; the operator's own Events about an
// invalid spec with a 2,000-character key are truncated and pass.
func TestCheckerCatchesOversizedEvent(t *testing.T) {
	w, c := checkedWorld(t, 2)
	d := savepointJob()
	d.Spec.LogConfiguration = map[string]string{strings.Repeat("k", 2000): "x"}
	_ = w.Apply(d)
	v := stepUntil(t, w, c, "reported the invalid spec", func(d *flinkv1beta1.FlinkDeployment) bool { return d.Status.Error != "" })
	if len(v) > 0 {
		t.Errorf("the operator's Events broke the API limit: %v", v)
	}
	if got := w.Events(); len(got) == 0 || len(got[len(got)-1].Message) > 1024 {
		t.Errorf("want a truncated Warning, got %v", got)
	}
	cur, _ := w.Get("job")
	w.events.Event(cur, "Warning", "Broken", strings.Repeat("m", 1025)) // a recorder without the bound
	if v := c.Check("job"); len(v) != 1 || !strings.Contains(v[0], "over the API limit") {
		t.Errorf("violations %v, want one for the oversized Event", v)
	}
}

// TestCheckerCatchesUncataloguedReason: an Event whose reason is not in decide.Reasons is a
// violation; the operator's own Events of a run are all catalogued.
func TestCheckerCatchesUncataloguedReason(t *testing.T) {
	w, c := checkedWorld(t, 2)
	_ = w.Apply(savepointJob())
	if v := stepUntil(t, w, c, "running", runningGen(1)); len(v) > 0 {
		t.Fatalf("the operator's Events broke the catalogue: %v", v)
	}
	cur, _ := w.Get("job")
	w.events.Event(cur, "Normal", "SomethingHappened", "a reason nobody documented")
	if v := c.Check("job"); len(v) != 1 || !strings.Contains(v[0], `"SomethingHappened" is not in the catalogue`) {
		t.Errorf("violations %v, want one for the uncatalogued reason", v)
	}
}

// TestStatusTooLargeIsAWarning: an (invalid) spec just under the object size limit makes the
// status write that would report it fail, as on a real API server; the operator says so in a
// Warning (status.error cannot).
func TestStatusTooLargeIsAWarning(t *testing.T) {
	w, c := checkedWorld(t, 8)
	d := savepointJob()
	_ = w.Apply(d)
	stepUntil(t, w, c, "running", runningGen(1))
	cur, _ := w.Get("job")
	cur.Spec.FlinkConfiguration.Set("env.java.opts.all", "")
	base, _ := json.Marshal(cur)
	// The error the status write would add is longer than the 40 bytes left.
	d.Spec.FlinkConfiguration.Set("env.java.opts.all", strings.Repeat("y", MaxObjectBytes-len(base)-40))
	_ = w.Apply(d)
	for range 5 {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range w.Events() {
		if e.Type == "Warning" && e.Reason == "StatusTooLarge" {
			return
		}
	}
	t.Errorf("no StatusTooLarge Warning; trace:\n%.3000s", w.Trace)
}

// TestRollbackIsJudgedWhenItStarts: invariant 6 judges a rollback as it starts; a person who
// turns rollbacks off after one happened (the resource stays ROLLED_BACK, as nothing is
// redeployed for that change) breaks nothing, while entering a rollback state with them off
// does.
func TestRollbackIsJudgedWhenItStarts(t *testing.T) {
	w, err := NewWorld(1)
	if err != nil {
		t.Fatal(err)
	}
	c := NewChecker(w)
	_ = w.Apply(savepointJob())
	stepUntil(t, w, c, "running", runningGen(1))
	set := func(enabled string, state flinkv1beta1.ReconciliationState) []string {
		t.Helper()
		d, _ := w.Get("job")
		d.Spec.FlinkConfiguration.Set("kubernetes.operator.deployment.rollback.enabled", enabled)
		if err := w.Client.Update(context.Background(), d); err != nil {
			t.Fatal(err)
		}
		d.Status.ReconciliationStatus.State = state
		if err := w.Client.Status().Update(context.Background(), d); err != nil {
			t.Fatal(err)
		}
		return c.Check("job")
	}
	if v := set("true", flinkv1beta1.ReconciliationRolledBack); len(v) > 0 {
		t.Errorf("rolled back with rollbacks on: %v", v)
	}
	if v := set("false", flinkv1beta1.ReconciliationRolledBack); len(v) > 0 {
		t.Errorf("rollbacks turned off after one: %v", v)
	}
	if v := set("false", flinkv1beta1.ReconciliationDeployed); len(v) > 0 {
		t.Errorf("deployed again: %v", v)
	}
	if v := strings.Join(set("false", flinkv1beta1.ReconciliationRolledBack), "\n"); !strings.Contains(v, "invariant 6") {
		t.Errorf("a rollback entered with rollbacks off: violations %q, want invariant 6", v)
	}
}
