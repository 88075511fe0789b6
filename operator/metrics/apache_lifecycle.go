package metrics

import (
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// LifecycleStates are the lifecycle states, each with its namespace gauge from the start (as
// Apache's operator registers them when it first sees a namespace).
var LifecycleStates = []string{"CREATED", "SUSPENDED", "UPGRADING", "DEPLOYED", "STABLE", "ROLLING_BACK", "ROLLED_BACK", "FAILED", "DELETING", "DELETED"}

// Transitions are the lifecycle transitions whose times Apache's operator records, by name:
// the time from leaving (or entering, for Stabilization and Rollback) the from state to
// entering the to state.
var Transitions = []Transition{
	{"SUSPENDED", "STABLE", true, "Resume"},
	{"STABLE", "STABLE", true, "Upgrade"},
	{"DEPLOYED", "UPGRADING", true, "Suspend"},
	{"STABLE", "UPGRADING", true, "Suspend"},
	{"ROLLED_BACK", "UPGRADING", true, "Suspend"},
	{"DEPLOYED", "SUSPENDED", true, "Suspend"},
	{"STABLE", "SUSPENDED", true, "Suspend"},
	{"ROLLED_BACK", "SUSPENDED", true, "Suspend"},
	{"DEPLOYED", "STABLE", false, "Stabilization"},
	{"DEPLOYED", "ROLLED_BACK", false, "Rollback"},
	{"UPGRADING", "DEPLOYED", true, "Submission"},
	{"ROLLING_BACK", "ROLLED_BACK", true, "Submission"},
}

// Transition is one tracked lifecycle transition.
type Transition struct {
	From, To string
	// FromLastSeen measures from the last time the resource was seen in From, else from when
	// it entered From.
	FromLastSeen bool
	Name         string
}

// settled are Apache's terminal lifecycle states: entering one ends the times of every other
// state, so a later transition is measured within one change, not across an earlier one.
var settled = []string{"STABLE", "SUSPENDED", "ROLLED_BACK", "FAILED", "DELETED"}

// TransitionMetric is the name of a transition's summary for kind, e.g.
// flink_k8soperator_FlinkDeployment_Lifecycle_Transition_Upgrade_TimeSeconds.
func TransitionMetric(kind flinkv1beta1.JobKind, transition string) string {
	return ApachePrefix + string(kind) + "_Lifecycle_Transition_" + transition + "_TimeSeconds"
}

// StateTimeMetric is the name of the summary of the time resources of kind spent in a
// lifecycle state, e.g. flink_k8soperator_FlinkDeployment_Lifecycle_State_UPGRADING_TimeSeconds:
// from entering the state to when it was last seen in it, recorded when the state's time
// ends (see ended).
func StateTimeMetric(kind flinkv1beta1.JobKind, state string) string {
	return ApachePrefix + string(kind) + "_Lifecycle_State_" + state + "_TimeSeconds"
}

// tracked is what the Apache metrics remember of one resource (about 200 bytes, kept small:
// a fleet has 10,000).
type tracked struct {
	counted ResourceState // the state its counts were taken from
	state   string        // its lifecycle state
	times   []stateTime   // the states since it last settled
}

// stateTime is when a resource entered a state and when it was last seen in it (Unix ns).
type stateTime struct {
	state         string
	entered, last int64
}

func (t *tracked) time(state string) *stateTime {
	for i := range t.times {
		if t.times[i].state == state {
			return &t.times[i]
		}
	}
	return nil
}

// registerLifecycle registers the transition and state-time summaries of both job kinds.
func (a *apache) registerLifecycle(reg prometheus.Registerer) error {
	summary := func(name, help string) (prometheus.Summary, error) {
		s := prometheus.NewSummary(prometheus.SummaryOpts{
			Name: name, Help: help,
			Objectives:  map[float64]float64{0.5: 0.05, 0.75: 0.02, 0.95: 0.01, 0.98: 0.005, 0.99: 0.001, 0.999: 0.0001},
			ConstLabels: a.pod.labels(),
		})
		return s, reg.Register(s)
	}
	for _, kind := range []flinkv1beta1.JobKind{flinkv1beta1.JobKindDeployment, flinkv1beta1.JobKindSessionJob} {
		for _, t := range Transitions {
			name := TransitionMetric(kind, t.Name)
			if _, ok := a.transitions[name]; ok {
				continue
			}
			s, err := summary(name, "Time of the "+t.Name+" lifecycle transitions of "+string(kind)+"s (seconds).")
			if err != nil {
				return err
			}
			a.transitions[name] = s
		}
		for _, state := range LifecycleStates {
			name := StateTimeMetric(kind, state)
			s, err := summary(name, "Time "+string(kind)+"s spent in lifecycle state "+state+" (seconds).")
			if err != nil {
				return err
			}
			a.stateTimes[name] = s
		}
	}
	return nil
}

// track records the lifecycle state at now (Unix ns), the tracked transitions it completes,
// and the times of the states it ends.
func (a *apache) track(kind flinkv1beta1.JobKind, t *tracked, state string, now int64) {
	if state == "" {
		return
	}
	if state != t.state {
		a.transitioned(kind, t, state, now)
		t.times = slices.DeleteFunc(t.times, func(st stateTime) bool {
			if !ended(st.state, state, t.state) {
				return false
			}
			a.stateTimes[StateTimeMetric(kind, st.state)].Observe(time.Duration(st.last - st.entered).Seconds())
			return true
		})
		if st := t.time(state); st != nil {
			st.entered = now
		} else {
			t.times = append(t.times, stateTime{state: state, entered: now})
		}
		t.state = state
	}
	t.time(state).last = now
}

// ended reports whether a resource's time in state st ends when it enters state from from,
// as Apache's lifecycle tracker clears it: entering a settled state ends every other state's
// time, entering UPGRADING every state's but UPGRADING's and from's.
func ended(st, state, from string) bool {
	switch {
	case slices.Contains(settled, state):
		return st != state
	case state == "UPGRADING":
		return st != state && st != from
	}
	return false
}

// transitioned records the tracked transitions into state that t completes at now.
func (a *apache) transitioned(kind flinkv1beta1.JobKind, t *tracked, state string, now int64) {
	for _, tr := range Transitions {
		from := t.time(tr.From)
		if tr.To != state || from == nil {
			continue
		}
		start := from.entered
		if tr.FromLastSeen {
			start = from.last
		}
		a.transitions[TransitionMetric(kind, tr.Name)].Observe(time.Duration(now - start).Seconds())
	}
}
