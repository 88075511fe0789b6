package bluegreen

import (
	"encoding/json"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

// Change classifies a change of spec.template.spec (the Apache operator's blue/green diff).
type Change string

// The changes, in the order they are recognised.
const (
	// ChangeNone: nothing to do (spec.configuration, spec.ingress and template.metadata are
	// not compared).
	ChangeNone Change = "IGNORE"
	// ChangeSuspend: the job was asked to suspend.
	ChangeSuspend Change = "SUSPEND"
	// ChangeResume: a suspended job was asked to run.
	ChangeResume Change = "RESUME"
	// ChangeRedeploy: savepointRedeployNonce changed: the other child starts from the
	// template's initialSavepointPath, discarding the running state.
	ChangeRedeploy Change = "SAVEPOINT_REDEPLOY"
	// ChangePatch: only fields that restart nothing changed; the active child is patched.
	ChangePatch Change = "PATCH_CHILD"
	// ChangeTransition: the job needs a new deployment: switch colour.
	ChangeTransition Change = "TRANSITION"
)

// Classify compares the last reconciled template spec (nil: none) with the current one.
func Classify(last, cur *flinkv1beta1.FlinkDeploymentSpec) Change {
	if last == nil || cur == nil {
		return ChangeTransition
	}
	was, is := jobState(last), jobState(cur)
	switch {
	case was != is && is == flinkv1beta1.JobStateSuspended:
		return ChangeSuspend
	case was != is:
		return ChangeResume
	}
	diff, _ := decide.Diff(*last, *cur)
	switch {
	case diff == decide.DiffSavepointRedeploy:
		return ChangeRedeploy
	case sameJSON(last, cur):
		return ChangeNone
	case diff == decide.DiffIgnore:
		return ChangePatch
	}
	return ChangeTransition
}

func jobState(s *flinkv1beta1.FlinkDeploymentSpec) flinkv1beta1.JobState {
	if s.Job == nil {
		return flinkv1beta1.JobStateRunning
	}
	return s.Job.EffectiveState()
}

// reconciledSpec is status.lastReconciledSpec's JSON: {"spec": <the whole spec>}.
type reconciledSpec struct {
	Spec flinkv1beta1.FlinkBlueGreenDeploymentSpec `json:"spec"`
}

// LastReconciled reads the template spec of status.lastReconciledSpec (nil: none, or
// unreadable).
func LastReconciled(st *flinkv1beta1.FlinkBlueGreenDeploymentStatus) *flinkv1beta1.FlinkDeploymentSpec {
	if st.LastReconciledSpec == "" {
		return nil
	}
	var r reconciledSpec
	if err := json.Unmarshal([]byte(st.LastReconciledSpec), &r); err != nil {
		return nil
	}
	return r.Spec.Template.Spec
}

// markReconciled records spec as the spec acted on.
func markReconciled(st *flinkv1beta1.FlinkBlueGreenDeploymentStatus, spec flinkv1beta1.FlinkBlueGreenDeploymentSpec) {
	raw, _ := json.Marshal(reconciledSpec{Spec: spec})
	st.LastReconciledSpec = string(raw)
}

// sameJSON reports whether a and b encode alike (an empty map or list is no setting).
func sameJSON(a, b any) bool {
	x, errA := json.Marshal(a)
	y, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(x) == string(y)
}

// SameSpec reports whether two child specs are alike (as their JSON).
func SameSpec(a, b flinkv1beta1.FlinkDeploymentSpec) bool { return sameJSON(a, b) }
