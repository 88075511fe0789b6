package cron

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/decide"
)

// IsTemplate reports whether d is a cron template: it carries the schedule annotation, or was
// one (a template whose annotation is removed stays a template that schedules nothing). A
// FlinkDeployment that already deployed its own job does not become one (see Ignored).
func IsTemplate(d *flinkv1beta1.FlinkDeployment) bool {
	_, ok := d.Annotations[AnnotationSchedule]
	return d.Status.Cron != nil || (ok && d.Status.ReconciliationStatus.LastReconciledSpec == "")
}

// Ignored says why the schedule annotation of a FlinkDeployment that is not a template is
// ignored ("" when there is none).
func Ignored(d *flinkv1beta1.FlinkDeployment) string {
	if _, ok := d.Annotations[AnnotationSchedule]; !ok || IsTemplate(d) {
		return ""
	}
	return "annotation " + AnnotationSchedule + " is ignored: this FlinkDeployment already runs its own job; create a new FlinkDeployment with the annotation to schedule runs"
}

// Run is an observed run of a template.
type Run struct {
	Name     string
	FireTime time.Time
	// State is the run's job state ("" before its first reconcile).
	State flinkv1beta1.JobStatusState
	// Deleting is set once the run is being deleted.
	Deleting bool
}

// Active reports whether the run's job has not ended.
func (r Run) Active() bool {
	return !r.Deleting && !r.State.GloballyTerminal()
}

// Input is everything Decide reads.
type Input struct {
	// Template is the cron template as read, with its status.
	Template *flinkv1beta1.FlinkDeployment
	// Runs are the template's runs, oldest fire time first.
	Runs []Run
	// Options are the operator options (polling intervals).
	Options config.Options
	// Now is the current time (from the injected clock).
	Now time.Time
}

// ActionKind names an action.
type ActionKind string

// The actions.
const (
	ActNone      ActionKind = "None"
	ActCreateRun ActionKind = "CreateRun"
	ActDeleteRun ActionKind = "DeleteRun"
)

// Action is the one change of a reconcile.
type Action struct {
	Kind ActionKind
	// Run is the run ActCreateRun creates.
	Run *flinkv1beta1.FlinkDeployment
	// Name is the run ActDeleteRun deletes.
	Name string
}

// Result is what Decide chose.
type Result struct {
	Action          Action
	Status          flinkv1beta1.FlinkDeploymentStatus
	Events          []decide.Event
	RequeueAfter    time.Duration
	RemoveFinalizer bool
}

// step is one reconcile's working state.
type step struct {
	in   Input
	d    *flinkv1beta1.FlinkDeployment
	st   *flinkv1beta1.FlinkDeploymentStatus
	cron *flinkv1beta1.CronStatus
	res  Result
	// report is the error this reconcile reports (status.error).
	report decide.Report
}

// Decide is the cron template state machine: from the template, its status (the last fire
// time handled lives there, so an operator restart neither skips nor repeats a fire) and its
// runs, it picks one action (start a run, or delete one), the new status, the events and when
// to look again. It is pure: no I/O, time comes from in.Now.
func Decide(in Input) Result {
	s := &step{in: in, d: in.Template, st: in.Template.Status.DeepCopy()}
	s.res.Action = Action{Kind: ActNone} // none yet: the one write outside act
	if s.st.Cron == nil {
		s.st.Cron = &flinkv1beta1.CronStatus{}
	}
	s.cron = s.st.Cron
	s.st.JobStatus.State = flinkv1beta1.JobStatusCronScheduled
	s.observeRuns()
	if s.d.DeletionTimestamp != nil {
		s.delete()
	} else {
		s.schedule()
	}
	s.finish()
	s.res.Status = *s.st
	return s.res
}

// observeRuns records the newest run, its state and the active runs.
func (s *step) observeRuns() {
	s.cron.Active = nil
	for _, r := range s.in.Runs {
		if r.Active() {
			s.cron.Active = append(s.cron.Active, r.Name)
		}
		if r.Name == s.cron.LastRun && r.State != s.cron.LastRunState {
			s.cron.LastRunState = r.State
			if !r.Active() {
				s.event(decide.Normal, "CronRunEnded", fmt.Sprintf("Run %s ended: %s", r.Name, r.State))
			}
		}
	}
}

func (s *step) schedule() {
	s.st.ObservedGeneration = s.d.Generation
	raw, present := s.d.Annotations[AnnotationSchedule]
	expr := strings.TrimSpace(raw)
	if !present { // removed; present but empty is an invalid schedule
		if s.cron.Schedule != "" {
			s.event(decide.Normal, "CronUnscheduled", "The "+AnnotationSchedule+" annotation was removed: no new runs start")
		}
		s.cron.Schedule, s.cron.NextScheduleTime = "", nil
		s.requeue(s.in.Options.ReconcileInterval)
		return
	}
	p, err := s.policy()
	if err != nil {
		s.fail(err.Error())
		return
	}
	now := s.in.Now.UTC()
	if s.cron.LastScheduleTime == nil || s.cron.Schedule == "" {
		// The schedule begins (or begins again) now: earlier fire times are not missed runs.
		s.cron.LastScheduleTime = ptrTime(now)
	}
	if s.cron.Schedule != expr {
		s.event(decide.Normal, "CronScheduled", "Scheduling runs at "+expr+" (UTC)")
		s.cron.Schedule = expr
	}
	last := s.cron.LastScheduleTime.UTC()
	due, missed, first := Due(p.Schedule, last, now)
	next := p.Schedule.Next(maxTime(now, last))
	s.cron.NextScheduleTime = ptrTime(next)
	s.requeue(min(next.Sub(now), s.in.Options.ReconcileInterval))
	if !due.IsZero() {
		s.fire(p, due, missed, first)
	}
}

// fire handles the due fire time: skip it, make room for its run, or start the run.
func (s *step) fire(p Policy, due time.Time, missed int, first time.Time) {
	name := RunName(s.d.Name, due)
	if missed > 0 {
		// Reported with the fire's outcome (below), once: only a handled fire moves
		// lastScheduleTime past the missed ones.
		defer func() {
			if s.cron.LastScheduleTime.Time.Equal(due) {
				s.event(decide.Warning, "CronMissed", fmt.Sprintf("%d fire time(s) from %s to before %s were missed (the operator was not running); only the latest is handled",
					missed, first.Format(time.RFC3339), due.Format(time.RFC3339)))
			}
		}()
	}
	for _, r := range s.in.Runs {
		if r.FireTime.Equal(due) {
			// Started before the status write that records it was lost.
			s.handled(due, name)
			return
		}
	}
	switch {
	case s.d.Spec.Job != nil && s.d.Spec.Job.EffectiveState() == flinkv1beta1.JobStateSuspended:
		s.skip(due, "the template is suspended (spec.job.state)")
	case p.StartingDeadline > 0 && s.in.Now.Sub(due) > p.StartingDeadline:
		s.skip(due, fmt.Sprintf("it is more than the starting deadline %s late", p.StartingDeadline))
	case len(s.cron.Active) > 0 && p.Concurrency == Forbid:
		s.skip(due, fmt.Sprintf("run %s is still active (concurrency policy Forbid)", s.cron.Active[0]))
	case len(s.cron.Active) > 0:
		s.deleteRun(s.cron.Active[0], "Replacing active run "+s.cron.Active[0]+" (concurrency policy Replace)")
	case s.cleanup(p):
	default:
		s.act(Action{Kind: ActCreateRun, Run: s.run(name, due)})
		s.event(decide.Normal, "CronRun", fmt.Sprintf("Submitting run %s for fire time %s", name, due.Format(time.RFC3339)))
		s.handled(due, name)
	}
}

// cleanup deletes the oldest finished run beyond the history limit (the previous run, by
// default) and waits for runs being deleted; it reports whether the new run must wait.
func (s *step) cleanup(p Policy) bool {
	finished := 0
	for _, r := range s.in.Runs {
		if r.Deleting {
			s.requeue(s.in.Options.ProgressCheckInterval)
			return true
		}
		if !r.Active() {
			finished++
		}
	}
	if finished <= p.HistoryLimit {
		return false
	}
	for _, r := range s.in.Runs {
		if !r.Active() {
			s.deleteRun(r.Name, "Cleaning up the previous run "+r.Name)
			return true
		}
	}
	return false
}

func (s *step) deleteRun(name, msg string) {
	s.act(Action{Kind: ActDeleteRun, Name: name})
	s.event(decide.Normal, "Cleanup", msg)
	s.requeue(s.in.Options.ProgressCheckInterval)
}

func (s *step) skip(due time.Time, why string) {
	s.event(decide.Warning, "CronSkipped", fmt.Sprintf("Fire time %s skipped: %s", due.Format(time.RFC3339), why))
	s.cron.LastScheduleTime = ptrTime(due)
}

func (s *step) handled(due time.Time, name string) {
	s.cron.LastScheduleTime = ptrTime(due)
	if s.cron.LastRun != name {
		s.cron.LastRun, s.cron.LastRunState = name, ""
		s.cron.Active = append(s.cron.Active, name)
	}
	s.requeue(s.in.Options.ProgressCheckInterval)
}

// run renders the run of a fire time: the template's spec (running), labels and owner.
func (s *step) run(name string, due time.Time) *flinkv1beta1.FlinkDeployment {
	r := &flinkv1beta1.FlinkDeployment{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: s.d.Namespace,
			Labels:          map[string]string{LabelTemplate: s.d.Name},
			Annotations:     map[string]string{AnnotationFireTime: due.UTC().Format(time.RFC3339)},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(s.d, flinkv1beta1.GroupVersion.WithKind("FlinkDeployment"))},
		},
		Spec: *s.d.Spec.DeepCopy(),
	}
	for k, v := range s.d.Labels {
		if _, ours := r.Labels[k]; !ours {
			r.Labels[k] = v
		}
	}
	r.Spec.Job.State = flinkv1beta1.JobStateRunning
	return r
}

// policy reads the annotations and checks that the template can run.
func (s *step) policy() (Policy, error) {
	p, err := ParsePolicy(s.d)
	switch {
	case err != nil:
		return p, err
	case s.d.Spec.Job == nil:
		return p, fmt.Errorf("a cron template needs spec.job: its runs are application deployments")
	}
	if errs := s.d.Validate(); len(errs) > 0 {
		return p, fmt.Errorf("invalid spec, no runs start: %w", errs.ToAggregate())
	}
	return p, nil
}

// delete removes every run, then releases the template's finalizer.
func (s *step) delete() {
	for _, r := range s.in.Runs {
		if !r.Deleting {
			s.deleteRun(r.Name, "Deleting run "+r.Name+" with its template")
			return
		}
	}
	if len(s.in.Runs) > 0 {
		s.requeue(s.in.Options.ProgressCheckInterval)
		return
	}
	s.event(decide.Normal, "Cleanup", "Every run is deleted, releasing the finalizer")
	s.res.RemoveFinalizer = true
}

func (s *step) fail(msg string) {
	s.report.Fail("InvalidCron", msg)
	s.cron.NextScheduleTime = nil
	s.requeue(s.in.Options.ReconcileInterval)
}

func (s *step) event(t decide.EventType, reason, msg string) {
	s.res.Events = append(s.res.Events, decide.Event{Type: t, Reason: reason, Message: msg})
}

func (s *step) requeue(d time.Duration) {
	if d <= 0 {
		d = time.Second
	}
	if s.res.RequeueAfter == 0 || d < s.res.RequeueAfter {
		s.res.RequeueAfter = d
	}
}

// finish reports the error and sets the lifecycle state and conditions.
func (s *step) finish() {
	st := s.st
	s.report.Write(&st.CommonStatus, &s.res.Events, s.in.Options.Exceptions)
	switch {
	case s.d.DeletionTimestamp != nil:
		st.LifecycleState = flinkv1beta1.LifecycleDeleting
	case st.Error != "":
		st.LifecycleState = flinkv1beta1.LifecycleFailed
	default:
		st.LifecycleState = flinkv1beta1.LifecycleStable
	}
	msg := flinkv1beta1.ErrorMessage(st.Error)
	if msg == "" {
		msg = "cron template " + s.cron.Schedule
	}
	decide.SetConditions(&st.CommonStatus, s.d.Generation, s.in.Now, msg, s.report.Reason())
}

func ptrTime(t time.Time) *metav1.Time {
	mt := metav1.NewTime(t.UTC().Truncate(time.Second))
	return &mt
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// act sets the reconcile's one action; a second one panics (decide.OneAction).
func (s *step) act(a Action) {
	decide.OneAction("cron", s.res.Action.Kind, a.Kind)
	s.res.Action = a
}
