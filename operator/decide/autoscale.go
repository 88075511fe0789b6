package decide

import (
	"fmt"
	"maps"
	"slices"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/autoscaler"
	"github.com/flinkop/flinkop/operator/config"
)

// WithAutoscaler is the resource the operator reconciles for an autoscaled job: d with the
// autoscaler's parallelism overrides merged into its pipeline.jobvertex-parallelism-overrides
// (the autoscaler's win for the vertices it set). A change of the overrides is then a spec
// change like any other: a SCALE, applied in place where the scheduler allows, else by an
// upgrade in the job's upgrade mode. d itself is returned when there is nothing to merge.
func WithAutoscaler(d *flinkv1beta1.FlinkDeployment, a *AutoscalerObservation) *flinkv1beta1.FlinkDeployment {
	if a == nil || len(a.State.Overrides) == 0 || d.Spec.Job == nil || resetNonce(d) != a.State.ResetNonce {
		return d
	}
	conf, err := d.Spec.Conf()
	if err != nil {
		return d
	}
	merged := map[string]int{}
	for id, p := range parseOverrides(conf[KeyParallelismOverrides]) {
		merged[id] = int(p)
	}
	maps.Copy(merged, a.State.Overrides)
	out := d.DeepCopy()
	out.Spec.FlinkConfiguration.Set(KeyParallelismOverrides, autoscaler.OverridesValue(merged))
	return out
}

// resetNonce is the spec's job.autoscalerResetNonce (0 when unset); a state begun under
// another is cleared.
func resetNonce(d *flinkv1beta1.FlinkDeployment) int64 {
	if d.Spec.Job != nil && d.Spec.Job.AutoscalerResetNonce != nil {
		return *d.Spec.Job.AutoscalerResetNonce
	}
	return 0
}

// autoscale runs the autoscaler once the deployed spec is stable and its job runs, with nothing
// else to do: the state (with this look's sample, and any new decision's overrides) is saved,
// and a decision is reported in a ScalingReport Event. Options out of bounds, a state
// ConfigMap that is not the resource's and metrics that cannot be read are Warning Events and
// no decision.
func (s *step) autoscale() {
	a := s.in.Observed.Autoscaler
	rs := s.st.ReconciliationStatus
	if s.res.Action.Kind != ActNone || s.conf == nil || rs.State != flinkv1beta1.ReconciliationDeployed ||
		rs.LastStableSpec != rs.LastReconciledSpec || s.st.JobStatus.State != flinkv1beta1.JobStatusRunning {
		return
	}
	if a == nil {
		if s.in.Observed.AutoscalerStateLeft {
			// Turned off: its overrides are gone from the spec; its state goes too, so that
			// turning it on again begins anew.
			s.event(Normal, "AutoscalerReset", "the autoscaler is off: its state ConfigMap is deleted")
			s.act(Action{Kind: ActDeleteAutoscalerState})
		}
		return
	}
	c, err := autoscaler.ParseConfig(s.conf, config.ParseDuration)
	if err != nil {
		s.event(Warning, ReasonAutoscalerError, err.Error())
		return
	}
	if a.StateError != "" {
		s.event(Warning, ReasonAutoscalerError, a.StateError)
		if !a.StateFound {
			return // another's ConfigMap: never written
		}
	}
	if n := resetNonce(s.d); n != a.State.ResetNonce {
		if a.StateFound && a.StateError == "" {
			s.event(Normal, "AutoscalerReset", "autoscalerResetNonce changed: the autoscaler's overrides and history are cleared")
		}
		s.saveAutoscaler(autoscaler.State{ResetNonce: n})
		s.requeue(immediately)
		return
	}
	if a.Collected == nil {
		if a.CollectError != "" {
			s.event(Warning, ReasonAutoscalerError, "no scaling decision: the job's metrics could not be read: "+a.CollectError)
		}
		return
	}
	if c.MetricsWindow < 2*s.in.Options.ReconcileInterval {
		s.event(Warning, ReasonAutoscalerError, fmt.Sprintf("job.autoscaler.metrics.window %s holds fewer than two looks at the job (one each %s, kubernetes.operator.reconcile.interval): no decision",
			c.MetricsWindow, s.in.Options.ReconcileInterval))
		return
	}
	if s.earlyLook(a) {
		return // looked at again early (a watch event): one sample per reconcile interval
	}
	if s.belowRequested(a.Collected.Topology) {
		return // the scheduler runs a vertex below what it was asked for: wait
	}
	c.MaxParallelism = min(c.MaxParallelism, s.slotsCap())
	next, d, _ := autoscaler.Step(c, a.State, *a.Collected, s.in.Now)
	if d.Evaluated != nil {
		s.res.Autoscaler = &AutoscalerLook{Topology: a.Collected.Topology, Decision: d}
	}
	if len(d.Changes) > 0 {
		what := "Scaling vertices"
		if !c.ScalingEnabled {
			what = "Recommended (job.autoscaler.scaling.enabled is false), not applied"
		}
		s.event(Normal, "ScalingReport", fmt.Sprintf("%s:\n%s", what, d.Report()))
	}
	s.saveAutoscaler(next)
	if !maps.Equal(next.Overrides, a.State.Overrides) {
		s.requeue(immediately) // the rescale follows at once
	}
}

// earlyLook reports whether this look comes within half a reconcile interval of the state's
// last sample of the same run (Flink's clock; a sample of an earlier run, or one ahead of this
// one, does not count).
func (s *step) earlyLook(a *AutoscalerObservation) bool {
	n := len(a.State.Samples)
	if n == 0 {
		return false
	}
	last := a.State.Samples[n-1].Time
	dt := a.Collected.Sample.Time.Sub(last)
	return !last.Before(a.Collected.RunningSince) && dt >= 0 && dt < s.in.Options.ReconcileInterval/2
}

// belowRequested reports whether the adaptive scheduler runs a vertex below its requested
// parallelism (after losing a TaskManager, say): a decision now would pin the others at what
// runs.
func (s *step) belowRequested(topo []autoscaler.Vertex) bool {
	j := s.in.Observed.Job
	if j == nil {
		return false
	}
	return slices.ContainsFunc(topo, func(v autoscaler.Vertex) bool {
		want, ok := j.VertexParallelism[v.ID]
		return ok && v.Parallelism < int(want)
	})
}

// slotsCap is the largest parallelism the cluster's slots allow when the spec fixes its
// TaskManagers (taskManager.replicas); without that the TaskManagers follow the parallelism.
func (s *step) slotsCap() int {
	tm := s.d.Spec.TaskManager
	if tm == nil || tm.Replicas == nil {
		return flinkv1beta1.MaxParallelism
	}
	return max(1, int(*tm.Replicas)*flinkv1beta1.TaskSlots(s.conf))
}

// saveAutoscaler writes the autoscaler's state to its ConfigMap.
func (s *step) saveAutoscaler(state autoscaler.State) {
	data, err := state.Encode()
	if err != nil {
		s.event(Warning, ReasonAutoscalerError, err.Error())
		return
	}
	s.act(Action{Kind: ActSaveAutoscalerState, AutoscalerState: data})
}
