package bluegreen

import (
	"fmt"
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

// Epoch is what the timestamps of status hold when no switch is in progress (Apache's value).
const Epoch = "1970-01-01T00:00:00Z"

// soon is the requeue of a step that should be followed at once (a finished switch may have
// a deferred change; a child being deleted is soon gone).
const soon = time.Second

// Decide is the blue/green state machine: from the resource, its children and the savepoint
// in progress it picks one action, the new status, the events and when to look again. It is
// pure: no I/O, time comes from in.Now.
func Decide(in Input) Result {
	s := &step{in: in, bg: in.Resource, st: in.Resource.Status.DeepCopy()}
	s.decide()
	if !equalStatus(*s.st, in.Resource.Status) {
		s.st.LastReconciledTimestamp = in.Now.UTC().Format(time.RFC3339)
	}
	s.res.Status = *s.st
	return s.res
}

type step struct {
	in  Input
	bg  *flinkv1beta1.FlinkBlueGreenDeployment
	st  *flinkv1beta1.FlinkBlueGreenDeploymentStatus
	set Settings
	res Result
}

func (s *step) decide() {
	if s.st.BlueGreenState == "" {
		s.st.BlueGreenState = flinkv1beta1.BlueGreenInitializingBlue
		s.resetMarkers()
	}
	if errs := s.bg.Validate(); len(errs) > 0 {
		s.fail(ReasonInvalid, "invalid spec, the children are left as they are: "+errs.ToAggregate().Error())
		s.requeue(s.in.ReconcileInterval)
		return
	}
	set, err := ParseSettings(s.bg.Spec.Configuration)
	if err != nil {
		s.fail(ReasonInvalid, "invalid spec, the children are left as they are: "+err.Error())
		s.requeue(s.in.ReconcileInterval)
		return
	}
	s.set = set
	if s.in.Foreign != "" {
		s.fail(ReasonFailed, fmt.Sprintf("FlinkDeployment %s exists and is not controlled by this FlinkBlueGreenDeployment: rename the resource or remove that FlinkDeployment", s.in.Foreign))
		s.requeue(s.set.RescheduleInterval)
		return
	}
	switch st := s.st.BlueGreenState; st {
	case flinkv1beta1.BlueGreenActiveBlue, flinkv1beta1.BlueGreenActiveGreen:
		s.active(colorOf(st))
	case flinkv1beta1.BlueGreenSavepointingBlue, flinkv1beta1.BlueGreenSavepointingGreen:
		s.savepointing(colorOf(st))
	case flinkv1beta1.BlueGreenTransitioningToBlue, flinkv1beta1.BlueGreenTransitioningToGreen:
		s.transitioning(colorOf(st))
	default:
		s.initializing()
	}
}

// initializing deploys the first (blue) child, unless the template is suspended, or a first
// deployment failed and the spec has not changed since. A blue child that exists already was
// deployed before a status write was lost: it is taken up again.
func (s *step) initializing() {
	tmpl := s.bg.Spec.Template.Spec
	if b := s.in.Blue; live(b) {
		s.deploy(flinkv1beta1.Blue, s.inPlace(flinkv1beta1.Blue, b), "taking up "+b.Name)
		return
	}
	if jobState(tmpl) == flinkv1beta1.JobStateSuspended {
		s.st.JobStatus.State = flinkv1beta1.JobStatusSuspended
		s.requeue(s.in.ReconcileInterval)
		return
	}
	failing := s.st.JobStatus.State == flinkv1beta1.JobStatusFailing
	if s.st.LastReconciledSpec != "" && (!failing || Classify(LastReconciled(s.st), tmpl) == ChangeNone) {
		s.requeue(s.in.ReconcileInterval)
		return
	}
	s.startChild(flinkv1beta1.Blue, s.childSpec(flinkv1beta1.Blue, tmpl.Job.InitialSavepointPath))
}

// active handles child x serving. A change of the template since the spec last acted on
// starts work; what the work is follows from how x's own spec differs from the template (after
// a failed switch, x still runs the spec before it).
func (s *step) active(x flinkv1beta1.BlueGreenColor) {
	tmpl := s.bg.Spec.Template.Spec
	a, other := s.child(x), s.child(x.Other())
	switch {
	case a == nil && live(other):
		s.st.BlueGreenState = activeState(x.Other())
		s.fail(ReasonFailed, fmt.Sprintf("Flink Deployment '%s' was deleted; %s stays active", x.ChildName(s.bg.Name), other.Name))
		s.requeue(soon)
		return
	case a == nil && other == nil:
		s.restart(fmt.Sprintf("Flink Deployment '%s' was deleted", x.ChildName(s.bg.Name)))
		return
	case Classify(LastReconciled(s.st), tmpl) == ChangeNone:
		s.idle(x, a, other)
		return
	case !live(a):
		s.notReady(x, a)
		return
	}
	change := s.pending(x, a)
	switching := change == ChangeTransition || change == ChangeRedeploy
	switch {
	case change == ChangeNone: // the template is what x runs (a change was undone)
		markReconciled(s.st, s.bg.Spec)
		s.st.Error = ""
		s.st.JobStatus.State = flinkv1beta1.JobStatusRunning
		if jobState(&a.Spec) == flinkv1beta1.JobStateSuspended {
			s.st.JobStatus.State = flinkv1beta1.JobStatusSuspended
		}
		s.requeue(soon)
	case other != nil && !live(other):
		s.removeLeftover(x.Other(), other) // waits until it is gone
	case other != nil && (!switching || jobState(&a.Spec) == flinkv1beta1.JobStateSuspended):
		// An in-place change leaves one child; a leftover that alone is ready is kept.
		if Ready(a) || !Ready(other) {
			s.removeLeftover(x.Other(), other)
			return
		}
		s.notReady(x, a)
	case switching && jobState(&a.Spec) == flinkv1beta1.JobStateSuspended:
		// A suspended job does not switch colour: its spec changes in place.
		s.deploy(x, s.inPlace(x, a), "patching suspended "+a.Name+" in place ("+string(change)+")")
	case switching && !Ready(a):
		s.notReady(x, a)
	case change == ChangeRedeploy || switching && tmpl.Job.EffectiveUpgradeMode() == flinkv1beta1.UpgradeModeStateless:
		s.startChild(x.Other(), s.childSpec(x.Other(), tmpl.Job.InitialSavepointPath))
	case switching && other != nil:
		s.removeLeftover(x.Other(), other)
	case switching:
		s.triggerSavepoint(x, a, false)
	default: // suspend, resume, or a change that restarts nothing: patch in place
		s.deploy(x, s.inPlace(x, a), "patching "+a.Name+" in place ("+string(change)+")")
	}
}

// idle keeps an active child x with nothing to change: a child of the other colour is the
// leftover of an interrupted switch (deleted, unless it alone is ready), and the Ingress
// follows x.
func (s *step) idle(x flinkv1beta1.BlueGreenColor, a, other *flinkv1beta1.FlinkDeployment) {
	switch {
	case live(other) && (Ready(a) || !Ready(other)):
		s.removeLeftover(x.Other(), other)
	case live(a) && s.syncIngress(x):
		s.requeue(soon)
	default:
		s.requeue(s.in.ReconcileInterval)
	}
}

// notReady reports a change that waits for the active child to be ready. Unlike the Apache
// operator, the change is kept (not marked reconciled): it goes ahead once the child is ready
// (its status change wakes the resource).
func (s *step) notReady(x flinkv1beta1.BlueGreenColor, a *flinkv1beta1.FlinkDeployment) {
	name := "null"
	if a != nil {
		name = a.Name
	}
	s.fail(ReasonFailed, fmt.Sprintf("Transition to %s not possible, current Flink Deployment '%s' is not READY. FAILING '%s'", x.Other(), name, s.bg.Name))
	s.requeue(s.in.ReconcileInterval)
}

// removeLeftover deletes a child of the colour that is not active (an earlier switch's, left
// by a crash or by hand) before anything else is done; one being deleted is waited for (its
// removal wakes the resource).
func (s *step) removeLeftover(c flinkv1beta1.BlueGreenColor, d *flinkv1beta1.FlinkDeployment) {
	if live(d) {
		s.act(Action{Kind: ActDelete, Color: c})
		s.requeue(soon)
		return
	}
	s.requeue(s.set.RescheduleInterval)
}

// restart starts over from the first deployment when no child is left (deleted by hand): the
// state they had is gone, and the template's initialSavepointPath is where blue starts.
func (s *step) restart(why string) {
	s.resetMarkers()
	s.st.BlueGreenState = flinkv1beta1.BlueGreenInitializingBlue
	s.st.LastReconciledSpec = ""
	s.fail(ReasonFailed, why+"; deploying again from the template")
	s.requeue(soon)
}

// startChild deploys a new child of colour c with spec, once no other child of that colour is
// in the way: one with another spec is deleted first (a new child never inherits a previous
// one's state), one with this spec is the deployment already made.
func (s *step) startChild(c flinkv1beta1.BlueGreenColor, spec *flinkv1beta1.FlinkDeploymentSpec) {
	if d := s.child(c); d != nil && (!live(d) || !sameJSON(d.Spec, *spec)) {
		s.removeLeftover(c, d)
		return
	}
	from := "with no savepoint"
	if p := spec.Job.InitialSavepointPath; p != "" {
		from = "from savepoint " + p
	}
	s.deploy(c, spec, "deploying "+c.ChildName(s.bg.Name)+" "+from)
}

// deploy creates or replaces child c and waits for it in TRANSITIONING_TO_<c>.
func (s *step) deploy(c flinkv1beta1.BlueGreenColor, spec *flinkv1beta1.FlinkDeploymentSpec, what string) {
	s.act(Action{Kind: ActDeploy, Color: c, Spec: spec})
	s.st.BlueGreenState = transitioning(c)
	s.st.JobStatus.State = flinkv1beta1.JobStatusReconciling
	s.st.Error = ""
	s.st.AbortTimestamp = s.stamp(s.in.Now.Add(s.set.AbortGracePeriod))
	s.st.DeploymentReadyTimestamp = Epoch
	markReconciled(s.st, s.bg.Spec)
	s.event(decide.Normal, ReasonDeploying, "Blue/green: "+what)
	s.requeue(s.set.RescheduleInterval)
}

// childSpec is child c's spec from the template, starting from savepoint.
func (s *step) childSpec(c flinkv1beta1.BlueGreenColor, savepoint string) *flinkv1beta1.FlinkDeploymentSpec {
	spec := flinkv1beta1.BlueGreenChildSpec(*s.bg.Spec.Template.Spec, c)
	spec.Job.InitialSavepointPath = savepoint
	return &spec
}

// inPlace is child d of colour c's spec from the template, keeping the savepoint d started
// from (a change made in place restores nothing new).
func (s *step) inPlace(c flinkv1beta1.BlueGreenColor, d *flinkv1beta1.FlinkDeployment) *flinkv1beta1.FlinkDeploymentSpec {
	return s.childSpec(c, d.Spec.Job.InitialSavepointPath)
}

// pending is the change child d of colour c needs to run the template.
func (s *step) pending(c flinkv1beta1.BlueGreenColor, d *flinkv1beta1.FlinkDeployment) Change {
	return Classify(&d.Spec, s.inPlace(c, d))
}

// child is the child of colour c (nil: none).
func (s *step) child(c flinkv1beta1.BlueGreenColor) *flinkv1beta1.FlinkDeployment {
	if c == flinkv1beta1.Blue {
		return s.in.Blue
	}
	return s.in.Green
}

// act sets the reconcile's one action; a second one panics (decide.OneAction).
func (s *step) act(a Action) {
	decide.OneAction("bluegreen", s.res.Action.Kind, a.Kind)
	s.res.Action = a
}
