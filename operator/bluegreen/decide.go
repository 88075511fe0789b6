package bluegreen

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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
// deployment failed and the spec has not changed since.
func (s *step) initializing() {
	tmpl := s.bg.Spec.Template.Spec
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

// active handles a change of the template while child x serves.
func (s *step) active(x flinkv1beta1.BlueGreenColor) {
	tmpl := s.bg.Spec.Template.Spec
	change := Classify(LastReconciled(s.st), tmpl)
	a, other := s.child(x), s.child(x.Other())
	switch {
	case change == ChangeNone:
		if live(a) && s.syncIngress(x) {
			s.requeue(soon)
		} else {
			s.requeue(s.in.ReconcileInterval)
		}
	case (change == ChangeTransition || change == ChangeRedeploy) && other == nil && live(a) && jobState(&a.Spec) == flinkv1beta1.JobStateSuspended:
		// A suspended job does not switch colour: its spec changes in place.
		s.deploy(x, s.childSpec(x, a.Spec.Job.InitialSavepointPath), "patching suspended "+a.Name+" in place ("+string(change)+")")
	case change == ChangeTransition || change == ChangeRedeploy:
		if !Ready(a) {
			s.notReady(x, a)
			return
		}
		if change == ChangeRedeploy || tmpl.Job.EffectiveUpgradeMode() == flinkv1beta1.UpgradeModeStateless {
			s.startChild(x.Other(), s.childSpec(x.Other(), tmpl.Job.InitialSavepointPath))
			return
		}
		if other != nil {
			s.removeLeftover(x.Other(), other)
			return
		}
		s.triggerSavepoint(x, a)
	case other != nil:
		s.removeLeftover(x.Other(), other) // an in-place change leaves one child
	case !live(a):
		s.notReady(x, a)
	default: // suspend, resume, or a change that restarts nothing: patch in place
		s.deploy(x, s.childSpec(x, a.Spec.Job.InitialSavepointPath), "patching "+a.Name+" in place ("+string(change)+")")
	}
}

// notReady reports a change that waits for the active child to be ready. Unlike the Apache
// operator, the change is kept (not marked reconciled): it goes ahead once the child is ready.
func (s *step) notReady(x flinkv1beta1.BlueGreenColor, a *flinkv1beta1.FlinkDeployment) {
	name := "null"
	if a != nil {
		name = a.Name
	}
	s.fail(ReasonFailed, fmt.Sprintf("Transition to %s not possible, current Flink Deployment '%s' is not READY. FAILING '%s'", x.Other(), name, s.bg.Name))
	s.requeue(s.set.RescheduleInterval)
}

// removeLeftover deletes a child of the colour that is not active (an earlier switch's, left
// by a crash or by hand) before a new one is deployed; one being deleted is waited for.
func (s *step) removeLeftover(c flinkv1beta1.BlueGreenColor, d *flinkv1beta1.FlinkDeployment) {
	if live(d) {
		s.res.Action = Action{Kind: ActDelete, Color: c}
	}
	s.requeue(soon)
}

// triggerSavepoint takes a savepoint of the active child's job for the switch; the job keeps
// running until the new child is ready.
func (s *step) triggerSavepoint(x flinkv1beta1.BlueGreenColor, a *flinkv1beta1.FlinkDeployment) {
	conf, _ := a.Spec.FlinkConfiguration.Flatten()
	dir, ok := flinkv1beta1.FirstSet(conf, flinkv1beta1.ConfigSavepointsDirV2, flinkv1beta1.ConfigSavepointsDir)
	if !ok {
		s.fail(ReasonFailed, fmt.Sprintf("Could not trigger Savepoint. Details: %s has no savepoint directory: set %s in spec.template.spec.flinkConfiguration, or use upgradeMode stateless",
			a.Name, flinkv1beta1.ConfigSavepointsDir))
		s.requeue(s.in.ReconcileInterval)
		return
	}
	id := triggerID(s.bg, s.bg.Spec.Template.Spec)
	s.res.Action = Action{Kind: ActTriggerSavepoint, Color: x, JobID: a.Status.JobStatus.JobID, TargetDirectory: dir, TriggerID: id}
	s.st.BlueGreenState = savepointing(x)
	s.st.SavepointTriggerID = id
	s.st.AbortTimestamp = s.stamp(s.in.Now.Add(s.set.AbortGracePeriod))
	s.st.JobStatus.State = flinkv1beta1.JobStatusReconciling
	s.st.Error = ""
	s.event(decide.Normal, ReasonSavepoint, fmt.Sprintf("Taking a savepoint of %s for the switch to %s", a.Name, x.Other().ChildName(s.bg.Name)))
	s.requeue(s.set.RescheduleInterval)
}

// savepointing waits for the savepoint of the active child x, then deploys the other child
// from it. A savepoint that fails, or is not done within the abort grace period, ends the
// switch (the change is marked reconciled, as in the Apache operator: change the spec again
// to retry).
func (s *step) savepointing(x flinkv1beta1.BlueGreenColor) {
	sp := s.in.Savepoint
	switch {
	case sp != nil && sp.Lost:
		// Flink no longer knows the trigger (its JobManager restarted): trigger it again.
		if a := s.child(x); Ready(a) {
			s.triggerSavepoint(x, a)
			return
		}
		s.endSwitch(x, "Could not start Transition. Details: the savepoint "+s.st.SavepointTriggerID+" was lost and "+x.ChildName(s.bg.Name)+" is not READY")
	case sp != nil && sp.Done && sp.Failure != "":
		s.endSwitch(x, fmt.Sprintf("Could not start Transition. Details: Could not fetch savepoint with triggerId: %s. Error: %s", s.st.SavepointTriggerID, sp.Failure))
	case sp != nil && sp.Done && Classify(LastReconciled(s.st), s.bg.Spec.Template.Spec) != ChangeTransition:
		// The template changed meanwhile to something that switches nothing (a suspend, say):
		// the savepoint goes unused, and the active child takes the change.
		s.st.BlueGreenState = activeState(x)
		s.resetMarkers()
		s.requeue(soon)
	case sp != nil && sp.Done:
		s.startChild(x.Other(), s.childSpec(x.Other(), sp.Location))
	case !s.in.Now.Before(s.parse(s.st.AbortTimestamp)):
		s.endSwitch(x, fmt.Sprintf("Could not start Transition. Details: the savepoint %s of %s did not complete within %s (%s)",
			s.st.SavepointTriggerID, x.ChildName(s.bg.Name), s.set.AbortGracePeriod, flinkv1beta1.BlueGreenAbortGracePeriod))
	default:
		s.requeue(s.set.RescheduleInterval)
	}
}

// endSwitch gives up a switch before any child was deployed: x stays active.
func (s *step) endSwitch(x flinkv1beta1.BlueGreenColor, msg string) {
	s.st.BlueGreenState = activeState(x)
	s.resetMarkers()
	markReconciled(s.st, s.bg.Spec)
	s.fail(ReasonFailed, msg)
	s.requeue(s.in.ReconcileInterval)
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
	s.res.Action = Action{Kind: ActDeploy, Color: c, Spec: spec}
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

// child is the child of colour c (nil: none).
func (s *step) child(c flinkv1beta1.BlueGreenColor) *flinkv1beta1.FlinkDeployment {
	if c == flinkv1beta1.Blue {
		return s.in.Blue
	}
	return s.in.Green
}

// fail sets FAILING with msg; the Warning is recorded when the message is new.
func (s *step) fail(reason, msg string) {
	if s.st.Error != msg || s.st.JobStatus.State != flinkv1beta1.JobStatusFailing {
		s.event(decide.Warning, reason, msg)
	}
	s.st.Error = msg
	s.st.JobStatus.State = flinkv1beta1.JobStatusFailing
}

func (s *step) event(t decide.EventType, reason, msg string) {
	s.res.Events = append(s.res.Events, decide.Event{Type: t, Reason: reason, Message: msg})
}

// requeue asks to look again after d (the soonest asked wins).
func (s *step) requeue(d time.Duration) {
	if d <= 0 {
		d = soon
	}
	if s.res.RequeueAfter == 0 || d < s.res.RequeueAfter {
		s.res.RequeueAfter = d
	}
}

func (s *step) resetMarkers() {
	s.st.AbortTimestamp, s.st.DeploymentReadyTimestamp, s.st.SavepointTriggerID = Epoch, Epoch, ""
}

func (s *step) stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// parse reads a status timestamp; an unreadable one is the epoch.
func (s *step) parse(v string) time.Time {
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Unix(0, 0).UTC()
	}
	return t
}

// triggerID is the savepoint trigger id of a switch to spec: a retried trigger (after a lost
// status write) names the same operation, and Flink does not take a second savepoint.
func triggerID(bg *flinkv1beta1.FlinkBlueGreenDeployment, spec *flinkv1beta1.FlinkDeploymentSpec) string {
	raw, _ := json.Marshal(spec)
	sum := sha256.Sum256(append([]byte(string(bg.UID)+"/bluegreen/"), raw...))
	return hex.EncodeToString(sum[:16])
}

// equalStatus compares two statuses, ignoring the timestamp of the last write.
func equalStatus(a, b flinkv1beta1.FlinkBlueGreenDeploymentStatus) bool {
	a.LastReconciledTimestamp, b.LastReconciledTimestamp = "", ""
	return sameJSON(a, b)
}
