package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"pgregory.net/rapid"

	"github.com/flinkop/flinkop/chaos"
	"github.com/flinkop/flinkop/harness"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// fleetMachine drives a small fleet of FlinkDeployments reconciled by a few workers in virtual
// time, while the JobManagers of some of them stop answering: spec changes of the others must
// still be acted on at once (invariant L), and a hung one must not keep workers busy the
// longer it hangs (invariant D), besides every invariant of each deployment.
type fleetMachine struct {
	checked
	names []string
	specs map[string]*flinkv1beta1.FlinkDeploymentSpec
	hung  map[string]bool
	n     int // workers
	stats *Stats
}

// FleetShare is the share of -rapid.checks that TestFleetStateMachine runs.
const FleetShare = 25

// FleetProperty is the fleet property on worlds from newBackend (nil: the fake backend): 4 to
// 10 deployments on 2 to 4 workers, fewer JobManagers hung at once than there are workers.
func FleetProperty(newBackend func() (harness.Backend, error), stats *Stats) func(*rapid.T) {
	return func(t *rapid.T) {
		st := runStats(stats)
		w := newWorld(t, newBackend)
		stats.keep(w)
		m := &fleetMachine{specs: map[string]*flinkv1beta1.FlinkDeploymentSpec{}, hung: map[string]bool{}, stats: st}
		m.n = rapid.IntRange(2, 4).Draw(t, "workers")
		w.SetWorkers(m.n)
		// Periodic savepoints on some deployments, at most maxSnapshots in flight (0: no
		// bound), which invariant N4 checks.
		w.SnapshotMaxConcurrent = rapid.IntRange(0, 2).Draw(t, "maxSnapshots")
		w.RestartOperator()
		for i := range rapid.IntRange(4, 10).Draw(t, "deployments") {
			name := fmt.Sprintf("job-%d", i)
			m.names = append(m.names, name)
			spec := BaseSpec()
			spec.FlinkConfiguration.Set("kubernetes.operator.periodic.savepoint.interval", rapid.SampledFrom([]string{"0", "2m", "0 */2 * * * ?"}).Draw(t, "periodic"))
			m.specs[name] = &spec
			m.apply(t, w, name)
		}
		m.checked = newChecked(w, m.names...)
		m.run(t, 30*time.Second)
		defer func() { st.Reconciles = m.w.Reconciles }()
		t.Repeat(map[string]func(*rapid.T){
			"change":  m.count(m.change),
			"wave":    m.count(m.wave),
			"hang":    m.count(m.hang),
			"heal":    m.count(m.heal),
			"advance": m.count(m.advance),
			"":        m.Check,
		})
		m.settle(t)
	}
}

// runStats is where a run counts what it did: stats (reset) when given, else a fresh Stats.
func runStats(stats *Stats) *Stats {
	if stats == nil {
		return &Stats{Faults: map[string]int{}}
	}
	stats.Faults = map[string]int{}
	return stats
}

func (m *fleetMachine) count(f func(*rapid.T)) func(*rapid.T) {
	return func(t *rapid.T) { f(t); m.stats.Actions++ }
}

func (m *fleetMachine) apply(t *rapid.T, w *harness.World, name string) {
	d := &flinkv1beta1.FlinkDeployment{Spec: *m.specs[name].DeepCopy()}
	d.Name = name
	if err := w.Apply(d); err != nil {
		t.Fatalf("apply %s: %v", name, err)
	}
}

// edit changes one deployment's spec: its parallelism or its pipeline name.
func (m *fleetMachine) edit(t *rapid.T, name string) {
	spec := m.specs[name].DeepCopy()
	if rapid.Bool().Draw(t, "rescale") {
		p := int32(rapid.IntRange(1, 4).Draw(t, "parallelism"))
		spec.Job.Parallelism = &p
	} else {
		spec.FlinkConfiguration.Set("pipeline.name", rapid.StringMatching(`[a-z]{3}`).Draw(t, "name"))
	}
	m.specs[name] = spec
	m.apply(t, m.w, name)
}

func (m *fleetMachine) change(t *rapid.T) {
	m.edit(t, rapid.SampledFrom(m.names).Draw(t, "deployment"))
	m.run(t, rapid.SampledFrom([]time.Duration{time.Second, 10 * time.Second}).Draw(t, "wait"))
}

// wave changes every deployment at the same instant, hung ones included.
func (m *fleetMachine) wave(t *rapid.T) {
	for _, name := range m.names {
		m.edit(t, name)
	}
	m.run(t, 10*time.Second)
}

// hang makes a JobManager stop answering for a while, keeping fewer hung than workers.
func (m *fleetMachine) hang(t *rapid.T) {
	m.forgetHealed()
	if len(m.hung) >= m.n-1 {
		t.Skip("as many JobManagers hang as the invariant allows")
	}
	var ok []string
	for _, n := range m.names {
		if !m.hung[n] {
			ok = append(ok, n)
		}
	}
	name := rapid.SampledFrom(ok).Draw(t, "deployment")
	m.injectFault(t, chaos.RESTTimeout{For: time.Duration(rapid.IntRange(1, 15).Draw(t, "minutes")) * time.Minute}, name, m.stats)
	m.hung[name] = true
	m.run(t, 5*time.Second)
}

// heal makes a hung JobManager answer again.
func (m *fleetMachine) heal(t *rapid.T) {
	m.forgetHealed()
	if len(m.hung) == 0 {
		t.Skip("no JobManager hangs")
	}
	name := rapid.SampledFrom(slices.Sorted(maps.Keys(m.hung))).Draw(t, "deployment")
	healFaults(m.w, name)
	delete(m.hung, name)
	m.run(t, 5*time.Second)
}

// forgetHealed drops the JobManagers whose fault has run out.
func (m *fleetMachine) forgetHealed() {
	for name := range m.hung {
		if m.w.Answers(name) {
			delete(m.hung, name)
		}
	}
}

func (m *fleetMachine) advance(t *rapid.T) {
	m.run(t, time.Duration(rapid.IntRange(1, 300).Draw(t, "seconds"))*time.Second)
}

// settle heals every JobManager and checks that the whole fleet converges.
func (m *fleetMachine) settle(t *rapid.T) {
	for _, name := range m.names {
		healFaults(m.w, name)
	}
	m.run(t, Settle)
	for _, name := range m.names {
		if ok, why := m.checker.Converged(name); !ok {
			t.Fatalf("%s not converged %s after the last fault and spec change: %s\ntrace:\n%s", name, Settle, why, m.w.Trace)
		}
	}
}
