package scenarios

import (
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/chaos"
	"github.com/flinkop/flinkop/harness"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/cron"
)

// TestCronDayWithOperatorRestarts runs an hourly batch template for a virtual day with the
// operator restarted, crashed after a write or deaf to watch events every few hours: every one
// of the 24 fire times gets exactly one run, the invariants hold after every step, no run
// outlives the next fire (history limit 0), and deleting the template leaves nothing.
func TestCronDayWithOperatorRestarts(t *testing.T) {
	b, err := harness.FakeBackend()
	if err != nil {
		t.Fatal(err)
	}
	cronDay(t, b, 24)
}

// cronDay runs an hourly batch template for hours virtual hours on backend b, with operator
// faults every few hours, and checks that every fire time got exactly one run and that
// deleting the template leaves nothing.
func cronDay(t *testing.T, b harness.Backend, hours int) {
	t.Helper()
	w := harness.NewWorldOn(b, 20261123)
	c := harness.NewChecker(w)
	c.WatchCronTemplate(cronTemplate)
	d := &flinkv1beta1.FlinkDeployment{Spec: CronTemplateSpec("1000")}
	d.Name = cronTemplate
	d.Annotations = map[string]string{cron.AnnotationSchedule: "0 * * * *"}
	if err := w.Apply(d); err != nil {
		t.Fatal(err)
	}
	faults := []chaos.Fault{chaos.OperatorRestart{}, chaos.OperatorCrashAfterWrite{K: 1}, chaos.MissedWatchEvents{Count: 3}, chaos.OperatorCrashAfterWrite{K: 3}}
	end := w.Now().Add(time.Duration(hours)*time.Hour + 10*time.Minute)
	for i := 0; w.Now().Before(end); i++ {
		// Faults at uneven times: some land right at a fire time, some between.
		next := w.Now().Add(time.Duration(37+w.Rand.Intn(180)) * time.Minute)
		if next.After(end) {
			next = end
		}
		if err := c.StepUntil(next, nil, cronTemplate); err != nil {
			t.Fatalf("%v\ntrace:\n%s", err, w.Trace)
		}
		f := faults[i%len(faults)]
		w.Trace.Add(w.Now(), "fault", cronTemplate, f.Name())
		if err := f.Apply(w, cronTemplate); err != nil {
			t.Fatal(err)
		}
	}
	ran, violations := c.CronAccounted(cronTemplate)
	if len(violations) > 0 {
		t.Fatalf("%s\ntrace:\n%s", strings.Join(violations, "\n"), w.Trace)
	}
	if len(ran) != hours {
		t.Errorf("%d fire times ran, want %d (one per hour): %v", len(ran), hours, ran)
	}
	for _, e := range w.Events() {
		if e.Reason == "CronSkipped" || e.Reason == "CronMissed" {
			t.Errorf("unexpected %s: %s", e.Reason, e.Message)
		}
	}
	if err := w.Delete(cronTemplate); err != nil {
		t.Fatal(err)
	}
	if err := c.StepUntil(w.Now().Add(10*time.Minute), nil, cronTemplate); err != nil {
		t.Fatalf("%v\ntrace:\n%s", err, w.Trace)
	}
	var left flinkv1beta1.FlinkDeploymentList
	if err := w.Client.List(t.Context(), &left, client.InNamespace(w.Namespace)); err != nil || len(left.Items) != 0 {
		t.Errorf("left after deleting the template: %d FlinkDeployments (%v)", len(left.Items), err)
	}
}

// TestCronStateMachine is the property test of cron templates: random time steps, operator
// faults, suspends and run lengths (runs that outlast the next fire) under random schedules,
// concurrency policies and history limits never break C1–C2 nor the runs' own invariants;
// at the end every fire is accounted for (C3) and deleting the template leaves nothing.
func TestCronStateMachine(t *testing.T) {
	t.Parallel()
	rapid.Check(t, CronProperty(nil))
}
