package bluegreen

import (
	"fmt"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

// transitioning waits for child t, deployed last, to be ready, then removes the other child
// (after the deletion delay) and makes t active. A change meanwhile patches t (a suspend waits
// until the switch is done). When t is not ready within the abort grace period while the
// other child serves, t is deleted and the other child stays active. When t is the only child
// nothing is given up: it keeps running, FAILING, until a change fixes it.
func (s *step) transitioning(t flinkv1beta1.BlueGreenColor) {
	tmpl := s.bg.Spec.Template.Spec
	target, cur := s.child(t), s.child(t.Other())
	change := Classify(LastReconciled(s.st), tmpl)
	switching := live(cur) // else t is the only child, patched in place
	switch {
	case change == ChangeNone || !live(target) || change == ChangeSuspend && switching:
		// nothing new; or a suspend, which waits until the switch is done
	case !switching && Ready(target) && (change == ChangeTransition || change == ChangeRedeploy):
		s.finish(t, flinkv1beta1.JobStatusRunning, ReasonActive, target.Name+" is active") // ACTIVE switches colour for the change
		return
	default:
		carry := target.Spec.Job.InitialSavepointPath
		if change == ChangeRedeploy {
			carry = tmpl.Job.InitialSavepointPath
		}
		s.deploy(t, s.childSpec(t, carry), "patching "+target.Name+", still being deployed ("+string(change)+")")
		return
	}
	switch {
	case !live(target):
		s.targetGone(t, cur)
	case jobState(&target.Spec) == flinkv1beta1.JobStateSuspended:
		if !Suspended(target) {
			if s.untilAbort() <= 0 {
				s.fail(ReasonFailed, fmt.Sprintf("Flink Deployment '%s' is not SUSPENDED within %s (%s)%s", target.Name,
					s.set.AbortGracePeriod, flinkv1beta1.BlueGreenAbortGracePeriod, childError(target)))
			}
			s.requeue(s.set.RescheduleInterval)
			return
		}
		s.finish(t, flinkv1beta1.JobStatusSuspended, ReasonSuspended, target.Name+" is suspended")
	case Ready(target):
		s.cutOver(t, target, cur)
	case s.untilAbort() > 0:
		s.requeue(min(s.set.RescheduleInterval, s.untilAbort()))
	case live(cur):
		if s.syncIngress(t.Other()) { // traffic back to cur first, if it had moved
			s.requeue(soon)
			return
		}
		s.act(Action{Kind: ActDelete, Color: t})
		s.st.BlueGreenState = activeState(t.Other())
		s.resetMarkers()
		s.fail(ReasonAborted, fmt.Sprintf("Aborting deployment '%s', rolling B/G deployment back to %s", target.Name, activeState(t.Other())))
		s.requeue(s.in.ReconcileInterval)
	default:
		s.fail(ReasonFailed, fmt.Sprintf("Flink Deployment '%s' is not READY within %s (%s)%s; it is the only one and keeps running: change spec.template.spec to fix it",
			target.Name, s.set.AbortGracePeriod, flinkv1beta1.BlueGreenAbortGracePeriod, childError(target)))
		s.requeue(s.in.ReconcileInterval)
	}
}

// childError quotes a child's status.error for a message ("" when it has none).
func childError(d *flinkv1beta1.FlinkDeployment) string {
	if d.Status.Error == "" {
		return ""
	}
	return " (its status.error: " + flinkv1beta1.ErrorMessage(d.Status.Error) + ")"
}

// cutOver makes the ready child t active: the old child cur is deleted once t has been ready
// for the deletion delay.
func (s *step) cutOver(t flinkv1beta1.BlueGreenColor, target, cur *flinkv1beta1.FlinkDeployment) {
	if live(cur) {
		ready := s.parse(s.st.DeploymentReadyTimestamp)
		if ready.Unix() <= 0 {
			s.st.DeploymentReadyTimestamp = s.stamp(s.in.Now)
			s.requeue(s.set.DeletionDelay)
			return
		}
		if wait := ready.Add(s.set.DeletionDelay).Sub(s.in.Now); wait > 0 {
			s.requeue(wait)
			return
		}
		if s.syncIngress(t) { // traffic moves to t before the old child goes
			s.requeue(soon)
			return
		}
		s.act(Action{Kind: ActDelete, Color: t.Other()})
	}
	s.finish(t, flinkv1beta1.JobStatusRunning, ReasonActive, target.Name+" is active")
}

// finish makes t active, its job in state job, and says so (reason, msg).
func (s *step) finish(t flinkv1beta1.BlueGreenColor, job flinkv1beta1.JobStatusState, reason, msg string) {
	s.resetMarkers()
	s.st.BlueGreenState = activeState(t)
	s.st.JobStatus.State = job
	s.st.Error = ""
	s.event(decide.Normal, reason, msg)
	s.requeue(soon) // a change deferred during the switch goes ahead
}

// targetGone handles a child being deployed that is gone (deleted by hand): the other child,
// if it serves, stays active; else the first deployment starts again.
func (s *step) targetGone(t flinkv1beta1.BlueGreenColor, cur *flinkv1beta1.FlinkDeployment) {
	s.resetMarkers()
	msg := fmt.Sprintf("Flink Deployment '%s' was deleted while it was being deployed", t.ChildName(s.bg.Name))
	if live(cur) {
		s.st.BlueGreenState = activeState(t.Other())
		s.fail(ReasonFailed, msg+"; "+cur.Name+" stays active")
		s.requeue(s.in.ReconcileInterval)
		return
	}
	s.restart(msg)
}

// live reports whether d exists and is not being deleted.
func live(d *flinkv1beta1.FlinkDeployment) bool { return d != nil && d.DeletionTimestamp == nil }

// Ready reports whether child d runs its current spec: the operator has looked at its
// generation, made it stable, and its job runs.
func Ready(d *flinkv1beta1.FlinkDeployment) bool {
	return live(d) && d.Status.ObservedGeneration == d.Generation && stableGeneration(d) == d.Generation &&
		d.Status.LifecycleState == flinkv1beta1.LifecycleStable && d.Status.JobStatus.State == flinkv1beta1.JobStatusRunning
}

// Suspended reports whether child d's job is suspended at its current generation.
func Suspended(d *flinkv1beta1.FlinkDeployment) bool {
	return live(d) && d.Status.ObservedGeneration == d.Generation && d.Status.LifecycleState == flinkv1beta1.LifecycleSuspended
}

// stableGeneration is the generation of d's last stable spec (0: none).
func stableGeneration(d *flinkv1beta1.FlinkDeployment) int64 {
	rs, err := decide.ParseReconciledSpec(d.Status.ReconciliationStatus.LastStableSpec)
	if err != nil || rs == nil {
		return 0
	}
	return rs.Metadata.Metadata.Generation
}

func colorOf(st flinkv1beta1.BlueGreenState) flinkv1beta1.BlueGreenColor {
	switch st {
	case flinkv1beta1.BlueGreenActiveGreen, flinkv1beta1.BlueGreenSavepointingGreen, flinkv1beta1.BlueGreenTransitioningToGreen:
		return flinkv1beta1.Green
	}
	return flinkv1beta1.Blue
}

// The states of each colour: active, savepointing, transitioning to.
var (
	activeStates        = colorStates{flinkv1beta1.BlueGreenActiveBlue, flinkv1beta1.BlueGreenActiveGreen}
	savepointingStates  = colorStates{flinkv1beta1.BlueGreenSavepointingBlue, flinkv1beta1.BlueGreenSavepointingGreen}
	transitioningStates = colorStates{flinkv1beta1.BlueGreenTransitioningToBlue, flinkv1beta1.BlueGreenTransitioningToGreen}
)

// colorStates is one state per colour.
type colorStates [2]flinkv1beta1.BlueGreenState

// of is c's state.
func (cs colorStates) of(c flinkv1beta1.BlueGreenColor) flinkv1beta1.BlueGreenState {
	if c == flinkv1beta1.Green {
		return cs[1]
	}
	return cs[0]
}

func activeState(c flinkv1beta1.BlueGreenColor) flinkv1beta1.BlueGreenState {
	return activeStates.of(c)
}

func savepointing(c flinkv1beta1.BlueGreenColor) flinkv1beta1.BlueGreenState {
	return savepointingStates.of(c)
}

func transitioning(c flinkv1beta1.BlueGreenColor) flinkv1beta1.BlueGreenState {
	return transitioningStates.of(c)
}
