package bluegreen

import (
	"fmt"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

// triggerSavepoint takes a savepoint of the active child's job for the switch; the job keeps
// running until the new child is ready.
// Its trigger id derives from the resource's UID and generation: a trigger repeated after a
// lost status write names the same savepoint, and a later change (even back to a spec asked
// for before) a new one. A repeated trigger (Flink lost the first) keeps the first's deadline.
func (s *step) triggerSavepoint(x flinkv1beta1.BlueGreenColor, a *flinkv1beta1.FlinkDeployment, again bool) {
	conf, _ := a.Spec.Conf()
	dir, ok := flinkv1beta1.FirstSet(conf, flinkv1beta1.ConfigSavepointsDirV2, flinkv1beta1.ConfigSavepointsDir)
	if !ok {
		s.fail(ReasonFailed, fmt.Sprintf("Could not trigger Savepoint. Details: %s has no savepoint directory: set %s in spec.template.spec.flinkConfiguration, or use upgradeMode stateless",
			a.Name, flinkv1beta1.ConfigSavepointsDir))
		s.requeue(s.in.ReconcileInterval)
		return
	}
	id := decide.TriggerID(string(s.bg.UID), "bluegreen-savepoint", s.bg.Generation)
	s.act(Action{Kind: ActTriggerSavepoint, Color: x, JobID: a.Status.JobStatus.JobID, TargetDirectory: dir, TriggerID: id})
	s.st.BlueGreenState = savepointing(x)
	s.st.SavepointTriggerID = id
	if !again {
		s.st.AbortTimestamp = s.stamp(s.in.Now.Add(s.set.AbortGracePeriod))
	}
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
		if a := s.child(x); Ready(a) && s.untilAbort() > 0 {
			s.triggerSavepoint(x, a, true)
			return
		}
		s.endSwitch(x, "Could not start Transition. Details: the savepoint "+s.st.SavepointTriggerID+" was lost and "+x.ChildName(s.bg.Name)+" is not READY")
	case sp != nil && sp.Done && sp.Failure != "":
		s.endSwitch(x, fmt.Sprintf("Could not start Transition. Details: Could not fetch savepoint with triggerId: %s. Error: %s", s.st.SavepointTriggerID, sp.Failure))
	case sp != nil && sp.Done && !s.stillSwitching(x):
		// The template changed meanwhile to something that switches nothing (a suspend, say):
		// the savepoint goes unused, and the active child takes the change.
		s.st.BlueGreenState = activeState(x)
		s.st.JobStatus.State = flinkv1beta1.JobStatusRunning
		s.resetMarkers()
		s.requeue(soon)
	case sp != nil && sp.Done:
		s.startChild(x.Other(), s.childSpec(x.Other(), sp.Location))
	case s.untilAbort() <= 0:
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

// stillSwitching reports whether the template still asks active child x for a switch (it may
// have changed while the savepoint was taken).
func (s *step) stillSwitching(x flinkv1beta1.BlueGreenColor) bool {
	a := s.child(x)
	if !live(a) {
		return false
	}
	return s.pending(x, a) == ChangeTransition
}
