package cron

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	robfig "github.com/robfig/cron/v3"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
)

// The annotations of a cron template.
const (
	// AnnotationSchedule makes a FlinkDeployment a cron template: a standard five-field cron
	// expression (minute hour day-of-month month day-of-week, or a descriptor such as
	// @hourly), evaluated in UTC.
	AnnotationSchedule = "job.execute.cron"
	// AnnotationConcurrencyPolicy says what happens when a run is still active at the next
	// fire time: Forbid (default) skips the fire, Replace deletes the active run and starts
	// the new one.
	AnnotationConcurrencyPolicy = "job.execute.cron.concurrency-policy"
	// AnnotationHistoryLimit is how many finished runs are kept (default 0: the previous run
	// is cleaned up before the next one starts).
	AnnotationHistoryLimit = "job.execute.cron.history-limit"
	// AnnotationStartingDeadline bounds how late a missed fire may still start (a duration in
	// Flink's notation such as 30 min; default: no bound, the latest missed fire runs once).
	AnnotationStartingDeadline = "job.execute.cron.starting-deadline"
)

// The labels and annotations of a run.
const (
	// LabelTemplate names the template a run belongs to.
	LabelTemplate = "flinkop.io/cron-template"
	// AnnotationFireTime is the fire time (RFC 3339, UTC) a run was started for.
	AnnotationFireTime = "flinkop.io/cron-fire-time"
)

// The concurrency policies.
const (
	Forbid  = "Forbid"
	Replace = "Replace"
)

// maxRunName bounds run names: the TaskManager Deployment adds "-taskmanager" (12
// characters) and Kubernetes names stop at 63.
const maxRunName = 63 - len("-taskmanager")

// Policy is a template's schedule and rules.
type Policy struct {
	Schedule         robfig.Schedule
	Concurrency      string
	HistoryLimit     int
	StartingDeadline time.Duration // 0: none
}

var parser = robfig.NewParser(robfig.Minute | robfig.Hour | robfig.Dom | robfig.Month | robfig.Dow | robfig.Descriptor)

// ParsePolicy reads a template's annotations.
func ParsePolicy(d *flinkv1beta1.FlinkDeployment) (Policy, error) {
	a := d.Annotations
	var p Policy
	var err error
	if p.Schedule, err = parser.Parse(strings.TrimSpace(a[AnnotationSchedule])); err != nil {
		return p, fmt.Errorf("annotation %s: %q is not a cron expression: %w", AnnotationSchedule, a[AnnotationSchedule], err)
	}
	// Run names have minute resolution, and each run deploys a cluster: fires are at least a
	// minute apart (only @every can ask for less).
	if every, ok := p.Schedule.(robfig.ConstantDelaySchedule); ok && every.Delay < time.Minute {
		return p, fmt.Errorf("annotation %s: %q fires more often than once a minute", AnnotationSchedule, a[AnnotationSchedule])
	}
	switch p.Concurrency = a[AnnotationConcurrencyPolicy]; p.Concurrency {
	case "":
		p.Concurrency = Forbid
	case Forbid, Replace:
	default:
		return p, fmt.Errorf("annotation %s: %q is not Forbid or Replace", AnnotationConcurrencyPolicy, p.Concurrency)
	}
	if v, ok := a[AnnotationHistoryLimit]; ok {
		if p.HistoryLimit, err = strconv.Atoi(v); err != nil || p.HistoryLimit < 0 {
			return p, fmt.Errorf("annotation %s: %q is not a count (0 or more)", AnnotationHistoryLimit, v)
		}
	}
	if v, ok := a[AnnotationStartingDeadline]; ok {
		if p.StartingDeadline, err = config.ParseDuration(v); err != nil || p.StartingDeadline <= 0 {
			return p, fmt.Errorf("annotation %s: %q is not a positive duration in Flink's notation (e.g. 30 min)", AnnotationStartingDeadline, v)
		}
	}
	if n := len(RunName(d.Name, time.Time{})); n > maxRunName {
		return p, fmt.Errorf("the run names of template %s would have %d characters, more than %d: shorten the template's name", d.Name, n, maxRunName)
	}
	return p, nil
}

// maxFires bounds the fire times walked between two reconciles (an every-minute schedule
// missed for more than two months); older fires count as missed without being listed.
const maxFires = 100000

// Due returns the newest fire time after last and no later than now (zero when none), how
// many earlier fires in between were missed and the first of them.
func Due(s robfig.Schedule, last, now time.Time) (due time.Time, missed int, first time.Time) {
	for t, n := s.Next(last), 0; !t.After(now) && n < maxFires; t, n = s.Next(t), n+1 {
		if !due.IsZero() {
			missed++
		}
		if first.IsZero() {
			first = t
		}
		due = t
	}
	return due, missed, first
}

// RunName is the name of a template's run for a fire time: <template>-<MMddHHmm> (UTC).
func RunName(template string, fire time.Time) string {
	return template + "-" + fire.UTC().Format("01021504")
}
