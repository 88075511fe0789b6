package cron_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/cron"
)

// t0 is a day's midnight; the template fires every 4 hours.
var t0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

// template is a stateless batch template (fixtures.Deployment) that fires every 4 hours,
// changed by mods.
func template(mods ...func(*flinkv1beta1.FlinkDeployment)) *flinkv1beta1.FlinkDeployment {
	d := fixtures.Deployment("flink", "nightly")
	d.UID, d.Generation = "uid-nightly", 1
	d.Annotations = map[string]string{cron.AnnotationSchedule: "0 */4 * * *"}
	d.Spec.Job.JarURI = "local:///opt/flink/batch.jar"
	for _, m := range mods {
		m(d)
	}
	return d
}

// scheduledSince gives the template a schedule handled up to last.
func scheduledSince(last time.Time) func(*flinkv1beta1.FlinkDeployment) {
	return func(d *flinkv1beta1.FlinkDeployment) {
		lt := metav1.NewTime(last)
		d.Status.Cron = &flinkv1beta1.CronStatus{Schedule: "0 */4 * * *", LastScheduleTime: &lt}
	}
}

func annotate(k, v string) func(*flinkv1beta1.FlinkDeployment) {
	return func(d *flinkv1beta1.FlinkDeployment) { d.Annotations[k] = v }
}

func run(fire time.Time, state flinkv1beta1.JobStatusState) cron.Run {
	return cron.Run{Name: cron.RunName("nightly", fire), FireTime: fire, State: state}
}

// outcome is what the table compares.
type outcome struct {
	Action       cron.ActionKind
	Target       string // the created or deleted run
	LastSchedule time.Time
	Reasons      string // the events' reasons, in order
	Error        bool
	Released     bool
}

func summarize(res cron.Result) outcome {
	o := outcome{Action: res.Action.Kind, Error: flinkv1beta1.ErrorMessage(res.Status.Error) != "", Released: res.RemoveFinalizer}
	switch {
	case res.Action.Run != nil:
		o.Target = res.Action.Run.Name
	case res.Action.Name != "":
		o.Target = res.Action.Name
	}
	if c := res.Status.Cron; c != nil && c.LastScheduleTime != nil {
		o.LastSchedule = c.LastScheduleTime.UTC()
	}
	var reasons []string
	for _, e := range res.Events {
		reasons = append(reasons, e.Reason)
	}
	o.Reasons = strings.Join(reasons, ",")
	return o
}

func TestDecide(t *testing.T) {
	at4 := t0.Add(4 * time.Hour)
	at8 := t0.Add(8 * time.Hour)
	cases := []struct {
		name string
		d    *flinkv1beta1.FlinkDeployment
		runs []cron.Run
		now  time.Time
		want outcome
	}{{
		name: "a new schedule begins now: earlier fire times are not missed",
		d:    template(), now: at4.Add(time.Hour),
		want: outcome{Action: cron.ActNone, LastSchedule: at4.Add(time.Hour), Reasons: "CronScheduled"},
	}, {
		name: "nothing is due before the next fire time",
		d:    template(scheduledSince(at4)), now: at4.Add(time.Hour),
		want: outcome{Action: cron.ActNone, LastSchedule: at4},
	}, {
		name: "a due fire starts its run",
		d:    template(scheduledSince(t0)), now: at4.Add(time.Second),
		want: outcome{Action: cron.ActCreateRun, Target: "nightly-03010400", LastSchedule: at4, Reasons: "CronRun"},
	}, {
		name: "fires missed while the operator was down: only the latest runs, once",
		d:    template(scheduledSince(t0)), now: at8.Add(5 * time.Hour),
		want: outcome{Action: cron.ActCreateRun, Target: "nightly-03011200", LastSchedule: at8.Add(4 * time.Hour), Reasons: "CronRun,CronMissed"},
	}, {
		name: "a run created before a lost status write is recorded, not created again",
		d:    template(scheduledSince(t0)), runs: []cron.Run{run(at4, "")}, now: at4.Add(2 * time.Second),
		want: outcome{Action: cron.ActNone, LastSchedule: at4},
	}, {
		name: "the previous finished run is cleaned up first",
		d:    template(scheduledSince(t0)), runs: []cron.Run{run(t0, flinkv1beta1.JobStatusFinished)}, now: at4,
		want: outcome{Action: cron.ActDeleteRun, Target: "nightly-03010000", LastSchedule: t0, Reasons: "Cleanup"},
	}, {
		name: "the new run waits while the previous one is being deleted",
		d:    template(scheduledSince(t0)), runs: []cron.Run{{Name: "nightly-03010000", FireTime: t0, State: "FINISHED", Deleting: true}}, now: at4,
		want: outcome{Action: cron.ActNone, LastSchedule: t0},
	}, {
		name: "a history limit keeps finished runs",
		d:    template(scheduledSince(t0), annotate(cron.AnnotationHistoryLimit, "1")), runs: []cron.Run{run(t0, flinkv1beta1.JobStatusFinished)}, now: at4,
		want: outcome{Action: cron.ActCreateRun, Target: "nightly-03010400", LastSchedule: at4, Reasons: "CronRun"},
	}, {
		name: "Forbid: a run still active skips the fire",
		d:    template(scheduledSince(t0)), runs: []cron.Run{run(t0, flinkv1beta1.JobStatusRunning)}, now: at4,
		want: outcome{Action: cron.ActNone, LastSchedule: at4, Reasons: "CronSkipped"},
	}, {
		name: "Replace: a run still active is deleted for the new one",
		d:    template(scheduledSince(t0), annotate(cron.AnnotationConcurrencyPolicy, "Replace")), runs: []cron.Run{run(t0, flinkv1beta1.JobStatusRunning)}, now: at4,
		want: outcome{Action: cron.ActDeleteRun, Target: "nightly-03010000", LastSchedule: t0, Reasons: "Cleanup"},
	}, {
		name: "a fire later than the starting deadline is skipped",
		d:    template(scheduledSince(t0), annotate(cron.AnnotationStartingDeadline, "30 min")), now: at4.Add(time.Hour),
		want: outcome{Action: cron.ActNone, LastSchedule: at4, Reasons: "CronSkipped"},
	}, {
		name: "a suspended template skips its fires",
		d: template(scheduledSince(t0), func(d *flinkv1beta1.FlinkDeployment) {
			d.Spec.Job.State = flinkv1beta1.JobStateSuspended
		}), now: at4,
		want: outcome{Action: cron.ActNone, LastSchedule: at4, Reasons: "CronSkipped"},
	}, {
		name: "removing the annotation stops scheduling",
		d: template(scheduledSince(t0), func(d *flinkv1beta1.FlinkDeployment) {
			delete(d.Annotations, cron.AnnotationSchedule)
		}), now: at8,
		want: outcome{Action: cron.ActNone, LastSchedule: t0, Reasons: "CronUnscheduled"},
	}, {
		name: "a bad expression is an error and schedules nothing",
		d:    template(annotate(cron.AnnotationSchedule, "every day at two")), now: at4,
		want: outcome{Action: cron.ActNone, Error: true, Reasons: "InvalidCron"},
	}, {
		name: "@every 1s is an error: fires are at least a minute apart",
		d:    template(annotate(cron.AnnotationSchedule, "@every 1s")), now: at4,
		want: outcome{Action: cron.ActNone, Error: true, Reasons: "InvalidCron"},
	}, {
		name: "an empty schedule is an error",
		d:    template(annotate(cron.AnnotationSchedule, "")), now: at4,
		want: outcome{Action: cron.ActNone, Error: true, Reasons: "InvalidCron"},
	}, {
		name: "@every 1m is a schedule",
		d:    template(annotate(cron.AnnotationSchedule, "@every 1m")), now: at4,
		want: outcome{Action: cron.ActNone, LastSchedule: at4, Reasons: "CronScheduled"},
	}, {
		name: "a bad concurrency policy is an error",
		d:    template(scheduledSince(t0), annotate(cron.AnnotationConcurrencyPolicy, "Allow")), now: at4,
		want: outcome{Action: cron.ActNone, LastSchedule: t0, Error: true, Reasons: "InvalidCron"},
	}, {
		name: "deletion deletes the runs, then releases the finalizer",
		d: template(scheduledSince(t0), func(d *flinkv1beta1.FlinkDeployment) {
			ts := metav1.NewTime(at4)
			d.DeletionTimestamp = &ts
		}), runs: []cron.Run{run(t0, flinkv1beta1.JobStatusFinished)}, now: at4,
		want: outcome{Action: cron.ActDeleteRun, Target: "nightly-03010000", LastSchedule: t0, Reasons: "Cleanup"},
	}, {
		name: "deletion with no run left releases the finalizer",
		d: template(scheduledSince(t0), func(d *flinkv1beta1.FlinkDeployment) {
			ts := metav1.NewTime(at4)
			d.DeletionTimestamp = &ts
		}), now: at4,
		want: outcome{Action: cron.ActNone, LastSchedule: t0, Reasons: "Cleanup", Released: true},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := cron.Decide(cron.Input{Template: tc.d, Runs: tc.runs, Options: config.Defaults(), Now: tc.now})
			if diff := cmp.Diff(tc.want, summarize(res)); diff != "" {
				t.Errorf("(-want +got)\n%s\nerror: %s\nevents: %+v", diff, flinkv1beta1.ErrorMessage(res.Status.Error), res.Events)
			}
			if res.Status.JobStatus.State != flinkv1beta1.JobStatusCronScheduled {
				t.Errorf("template job state %s, want CRON_SCHEDULED", res.Status.JobStatus.State)
			}
		})
	}
}

func TestRunIsTheTemplatesJobOwnedByIt(t *testing.T) {
	d := template(scheduledSince(t0), func(d *flinkv1beta1.FlinkDeployment) {
		d.Labels = map[string]string{"team": "data"}
		d.Spec.Job.State = flinkv1beta1.JobStateRunning
	})
	res := cron.Decide(cron.Input{Template: d, Options: config.Defaults(), Now: t0.Add(4 * time.Hour)})
	r := res.Action.Run
	if r == nil {
		t.Fatalf("no run created: %+v", res.Events)
	}
	if r.Labels[cron.LabelTemplate] != "nightly" || r.Labels["team"] != "data" || r.Annotations[cron.AnnotationFireTime] != "2026-03-01T04:00:00Z" {
		t.Errorf("run metadata %+v", r.ObjectMeta)
	}
	if len(r.OwnerReferences) != 1 || r.OwnerReferences[0].UID != "uid-nightly" || r.OwnerReferences[0].Controller == nil || !*r.OwnerReferences[0].Controller {
		t.Errorf("owner references %+v", r.OwnerReferences)
	}
	if _, scheduled := r.Annotations[cron.AnnotationSchedule]; scheduled {
		t.Error("a run is itself a cron template")
	}
	if diff := cmp.Diff(d.Spec, r.Spec); diff != "" {
		t.Errorf("run spec differs from the template's (-template +run)\n%s", diff)
	}
	if next := res.Status.Cron.NextScheduleTime; next == nil || !next.Time.Equal(t0.Add(8*time.Hour)) {
		t.Errorf("nextScheduleTime %v, want 08:00", next)
	}
}
