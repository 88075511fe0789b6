package scenarios

import (
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"pgregory.net/rapid"

	"github.com/flinkop/flinkop/chaos"
	"github.com/flinkop/flinkop/harness"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/cron"
)

// cronTemplate is the name of the template a cron machine drives.
const cronTemplate = "nightly"

// cronFaults are the fault classes of the cron machine: the operator's own (restarts, crashes
// after a write, missed watch events, API errors, stale reads) and the runs' clusters'.
var cronFaults = []chaos.Fault{
	chaos.OperatorRestart{},
	chaos.OperatorCrashAfterWrite{K: 1},
	chaos.OperatorCrashAfterWrite{K: 2},
	chaos.MissedWatchEvents{Count: 2},
	chaos.APIErrors{Code: 409, Count: 2},
	chaos.APIErrors{Code: 500, Count: 1},
	chaos.StaleReads{For: 30 * time.Second},
}

// CronTemplateSpec is a batch job scheduled by annotations: it reads records records at 100
// per second and finishes.
func CronTemplateSpec(records string) flinkv1beta1.FlinkDeploymentSpec {
	s := BaseSpec()
	s.Job.UpgradeMode = flinkv1beta1.UpgradeModeStateless
	s.FlinkConfiguration.Set("execution.runtime-mode", "BATCH")
	s.FlinkConfiguration.Set("fakeflink.job.records", records)
	return s
}

// cronMachine drives one cron template through time, operator faults, suspends and spec
// changes (short and long runs), checking the invariants (C1, C2 and the runs' own) after
// every step, and at the end that every fire was run or reported (C3) and that deleting the
// template leaves nothing.
type cronMachine struct {
	checked
	d     *flinkv1beta1.FlinkDeployment
	stats *Stats
}

// CronProperty is the state-machine property of cron templates on the fake backend.
func CronProperty(stats *Stats) func(*rapid.T) {
	return func(t *rapid.T) {
		st := &Stats{Faults: map[string]int{}}
		if stats != nil {
			st = stats
			st.Faults = map[string]int{}
		}
		w, err := harness.NewWorld(rapid.Int64().Draw(t, "seed"))
		if err != nil {
			t.Fatalf("world: %v", err)
		}
		stats.keep(w)
		// Runs sit finished until the next fire: a longer resync keeps a virtual day cheap.
		w.Options.ReconcileInterval = 5 * time.Minute
		w.RestartOperator()
		m := &cronMachine{checked: newChecked(w, cronTemplate), stats: st}
		m.checker.WatchCronTemplate(cronTemplate)
		m.d = &flinkv1beta1.FlinkDeployment{Spec: CronTemplateSpec("1000")}
		m.d.Name = cronTemplate
		m.d.Annotations = map[string]string{
			cron.AnnotationSchedule:          rapid.SampledFrom([]string{"*/10 * * * *", "*/15 * * * *", "5,35 * * * *"}).Draw(t, "schedule"),
			cron.AnnotationConcurrencyPolicy: rapid.SampledFrom([]string{cron.Forbid, cron.Replace}).Draw(t, "policy"),
			cron.AnnotationHistoryLimit:      rapid.SampledFrom([]string{"0", "1", "2"}).Draw(t, "history"),
		}
		m.apply(t)
		defer func() { st.Reconciles = m.w.Reconciles }()
		t.Repeat(m.actions())
		m.settle(t)
	}
}

func (m *cronMachine) apply(t *rapid.T) {
	if err := m.w.Apply(m.d); err != nil {
		t.Fatalf("apply: %v", err)
	}
}

func (m *cronMachine) actions() map[string]func(*rapid.T) {
	count := func(f func(*rapid.T)) func(*rapid.T) {
		return func(t *rapid.T) { f(t); m.stats.Actions++ }
	}
	return map[string]func(*rapid.T){
		"advance": count(func(t *rapid.T) {
			m.run(t, time.Duration(rapid.IntRange(1, 20).Draw(t, "minutes"))*time.Minute)
		}),
		"fault": count(func(t *rapid.T) {
			m.inject(t, cronFaults, cronTemplate, m.stats)
			m.run(t, time.Duration(rapid.IntRange(1, 5).Draw(t, "after"))*time.Minute)
		}),
		"runLength": count(func(t *rapid.T) {
			// Short runs finish in seconds; long ones outlast the next fire time.
			records := rapid.SampledFrom([]string{"1000", "500000"}).Draw(t, "records")
			m.d.Spec.FlinkConfiguration.Set("fakeflink.job.records", records)
			m.apply(t)
			m.run(t, time.Minute)
		}),
		"suspend": count(func(t *rapid.T) {
			state := rapid.SampledFrom([]flinkv1beta1.JobState{flinkv1beta1.JobStateSuspended, flinkv1beta1.JobStateRunning}).Draw(t, "state")
			m.d.Spec.Job.State = state
			m.apply(t)
			m.run(t, time.Minute)
		}),
		"": m.Check,
	}
}

// settle lets the schedule run an hour without faults, checks that every fire was handled
// (C3), then deletes the template and checks that its runs and their clusters are gone.
func (m *cronMachine) settle(t *rapid.T) {
	m.run(t, 40*time.Minute)
	if ok, why := m.checker.Converged(cronTemplate); !ok {
		t.Fatalf("template not converged: %s\ntrace:\n%s", why, m.w.Trace)
	}
	if _, v := m.checker.CronAccounted(cronTemplate); len(v) > 0 {
		t.Fatalf("%s\ntrace:\n%s", strings.Join(v, "\n"), m.w.Trace)
	}
	if err := m.w.Delete(cronTemplate); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	m.run(t, 10*time.Minute)
	if _, err := m.w.Get(cronTemplate); !apierrors.IsNotFound(err) {
		t.Fatalf("template not deleted after 10 minutes (%v)\ntrace:\n%s", err, m.w.Trace)
	}
}
