package harness

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	robfig "github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/cron"
)

// cronState is what the checker remembers of one cron template.
type cronState struct {
	// runs maps every run name seen to the uid it had, and to its fire time.
	runs  map[string]types.UID
	fires map[string]time.Time
	// gone are the runs found deleted with nothing left: not checked again.
	gone map[string]bool
	// began is the time the schedule began (the first lastScheduleTime seen).
	began time.Time
}

// WatchCronTemplate makes Check also check the cron invariants of the named template:
//
//	C1 a fire time never gets a second run (a run name never comes back with a new uid), and
//	   under the Forbid policy at most one run is active at a time;
//	C2 no run leaks: at most historyLimit finished runs, one active and one being replaced
//	   exist, and none once the template is gone.
//
// CronAccounted checks at the end that every fire time was handled (C3).
func (c *Checker) WatchCronTemplate(name string) {
	if c.crons == nil {
		c.crons = map[string]*cronState{}
	}
	c.crons[name] = &cronState{runs: map[string]types.UID{}, fires: map[string]time.Time{}, gone: map[string]bool{}}
}

func (c *Checker) checkCrons() []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(c.crons)) {
		out = append(out, c.checkCron(name, c.crons[name])...)
	}
	return out
}

func (c *Checker) checkCron(name string, st *cronState) []string {
	var runs flinkv1beta1.FlinkDeploymentList
	if err := c.w.Client.List(context.Background(), &runs, client.InNamespace(c.w.Namespace), client.MatchingLabels{cron.LabelTemplate: name}); err != nil {
		return []string{"list runs: " + err.Error()}
	}
	var out []string
	exists := map[string]bool{}
	for _, r := range runs.Items {
		exists[r.Name] = true
	}
	for _, run := range slices.Sorted(maps.Keys(st.runs)) {
		if st.gone[run] {
			continue
		}
		v := c.check(run) // a run is a FlinkDeployment like any other
		out = append(out, v...)
		st.gone[run] = !exists[run] && len(v) == 0
	}
	active := 0
	for _, r := range runs.Items {
		if uid, seen := st.runs[r.Name]; seen && uid != r.UID {
			out = append(out, fmt.Sprintf("template %s: run %s was created a second time (C1)", name, r.Name))
		}
		st.runs[r.Name] = r.UID
		st.fires[r.Name], _ = time.Parse(time.RFC3339, r.Annotations[cron.AnnotationFireTime])
		if (cron.Run{State: r.Status.JobStatus.State, Deleting: r.DeletionTimestamp != nil}).Active() {
			active++
		}
	}
	t, err := c.w.Get(name)
	if err != nil {
		if len(runs.Items) > 0 && c.w.Sim.Cluster(c.w.Namespace, name) == nil {
			return append(out, c.runsLeft(name, runs.Items)...)
		}
		return out
	}
	if t.Status.Cron != nil && t.Status.Cron.LastScheduleTime != nil && st.began.IsZero() {
		st.began = t.Status.Cron.LastScheduleTime.Time
	}
	p, perr := cron.ParsePolicy(t)
	if perr != nil {
		return out
	}
	if p.Concurrency == cron.Forbid && active > 1 {
		out = append(out, fmt.Sprintf("template %s: %d runs active under Forbid (C1)", name, active))
	}
	if limit := p.HistoryLimit + 2; len(runs.Items) > limit {
		out = append(out, fmt.Sprintf("template %s: %d runs exist, more than history limit %d + 2 (C2)", name, len(runs.Items), p.HistoryLimit))
	}
	return out
}

// runsLeft reports the runs of a deleted template that are not being deleted (C2).
func (c *Checker) runsLeft(name string, runs []flinkv1beta1.FlinkDeployment) []string {
	var left []string
	for _, r := range runs {
		if r.DeletionTimestamp == nil {
			left = append(left, r.Name)
		}
	}
	if len(left) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("template %s is deleted but its runs %v are not (C2)", name, left)}
}

// CronAccounted checks C3 for a template: every fire time from the schedule's start to its
// lastScheduleTime got exactly one run, or a Warning saying it was skipped or missed. It
// returns the fire times that were run, and the violations.
func (c *Checker) CronAccounted(name string) (ran []time.Time, violations []string) {
	st := c.crons[name]
	t, err := c.w.Get(name)
	if err != nil || st == nil || t.Status.Cron == nil || t.Status.Cron.LastScheduleTime == nil {
		return nil, []string{fmt.Sprintf("template %s: no schedule to account for (%v)", name, err)}
	}
	sched, err := robfig.ParseStandard(t.Status.Cron.Schedule)
	if err != nil {
		return nil, []string{err.Error()}
	}
	byFire := map[time.Time]string{}
	for run, fire := range st.fires {
		byFire[fire.UTC()] = run
	}
	skipped, missedBefore := c.cronWarnings(name)
	last := t.Status.Cron.LastScheduleTime.UTC()
	for f := sched.Next(st.began.UTC()); !f.After(last); f = sched.Next(f) {
		switch {
		case byFire[f] != "":
			ran = append(ran, f)
		case skipped[f] || coveredByMissed(f, missedBefore):
		default:
			violations = append(violations, fmt.Sprintf("template %s: fire time %s has no run and no Warning (C3)", name, f.Format(time.RFC3339)))
		}
	}
	return ran, violations
}

// cronWarnings reads the template's CronSkipped fire times and the CronMissed ranges (first
// missed fire → the fire time the range ends before).
func (c *Checker) cronWarnings(name string) (skipped map[time.Time]bool, missed map[time.Time]time.Time) {
	skipped, missed = map[time.Time]bool{}, map[time.Time]time.Time{}
	for _, e := range c.w.events.events {
		if e.Object != name {
			continue
		}
		switch e.Reason {
		case "CronSkipped":
			if f, ok := timeAfter(e.Message, "Fire time "); ok {
				skipped[f] = true
			}
		case "CronMissed":
			from, ok1 := timeAfter(e.Message, " from ")
			before, ok2 := timeAfter(e.Message, " to before ")
			if ok1 && ok2 {
				missed[from] = before
			}
		}
	}
	return skipped, missed
}

// coveredByMissed reports whether f lies in a range a CronMissed warning reported.
func coveredByMissed(f time.Time, missed map[time.Time]time.Time) bool {
	for from, before := range missed {
		if !f.Before(from) && f.Before(before) {
			return true
		}
	}
	return false
}

func timeAfter(msg, prefix string) (time.Time, bool) {
	_, rest, ok := strings.Cut(msg, prefix)
	if !ok {
		return time.Time{}, false
	}
	f, err := time.Parse(time.RFC3339, strings.Fields(rest)[0])
	return f.UTC(), err == nil
}
