package scenarios

import (
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"pgregory.net/rapid"

	"github.com/flinkop/flinkop/chaos"
	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/harness"
	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// resource is the name of the FlinkDeployment a machine drives.
const resource = "job"

// Settle bounds invariant 5: after the last fault and spec change the resource converges
// within Settle and then stays put, with no further writes, for Quiet.
const (
	Settle = 10 * time.Minute
	Quiet  = 5 * time.Minute
)

// Stats counts what one run did.
type Stats struct {
	Actions, Reconciles int
	Faults              map[string]int
	// World is the world of the property's first run (rapid's shrinking runs come after it):
	// for a replay, the one whose seed failed, with its trace.
	World *harness.World
}

// keep records w as the first run's world.
func (s *Stats) keep(w *harness.World) {
	if s != nil && s.World == nil {
		s.World = w
	}
}

// machine drives one FlinkDeployment through random spec changes, faults and operator
// restarts, checking the invariants after every step of the world.
type machine struct {
	checked
	spec   flinkv1beta1.FlinkDeploymentSpec
	exists bool
	nonce  int64
	stats  *Stats
	// snapshots counts the FlinkStateSnapshots created (their names are snap-1, snap-2, …).
	snapshots int
}

// Property is the state-machine property on worlds from newBackend (nil: the fake backend):
// random actions never break an invariant, and the resource converges once they stop. stats
// (optional) receives what the first run did.
func Property(newBackend func() (harness.Backend, error), stats *Stats) func(*rapid.T) {
	first := true
	return func(t *rapid.T) {
		st := &Stats{Faults: map[string]int{}}
		if first && stats != nil {
			st, first = stats, false
			st.Faults = map[string]int{}
		}
		w := newWorld(t, newBackend)
		stats.keep(w) // before the first step: a violation there has its timeline too
		m := newMachine(t, w, st)
		defer func() { st.Reconciles = m.w.Reconciles }()
		t.Repeat(m.actions())
		m.settle(t)
	}
}

// newWorld makes a run's world on a backend from newBackend (nil: the fake backend), seeded
// by a draw.
func newWorld(t *rapid.T, newBackend func() (harness.Backend, error)) *harness.World {
	if newBackend == nil {
		newBackend = harness.FakeBackend
	}
	b, err := newBackend()
	if err != nil {
		t.Fatalf("backend: %v", err)
	}
	return harness.NewWorldOn(b, rapid.Int64().Draw(t, "seed"))
}

func newMachine(t *rapid.T, w *harness.World, st *Stats) *machine {
	m := &machine{checked: newChecked(w, resource), spec: BaseSpec(), stats: st}
	m.apply(t)
	m.run(t, 20*time.Second)
	return m
}

// BaseSpec is a stateful job with HA, checkpoints and savepoints, so every upgrade mode is
// valid.
func BaseSpec() flinkv1beta1.FlinkDeploymentSpec {
	return fixtures.WithHA(fixtures.StatefulDeployment("", "", flinkv1beta1.UpgradeModeSavepoint)).Spec
}

func (m *machine) apply(t *rapid.T) {
	d := &flinkv1beta1.FlinkDeployment{Spec: *m.spec.DeepCopy()}
	d.Name = resource
	if err := m.w.Apply(d); err != nil {
		t.Fatalf("apply: %v", err)
	}
	m.exists = true
}

func (m *machine) changeSpec(t *rapid.T) {
	if !m.exists {
		m.apply(t)
		return
	}
	switch rapid.IntRange(0, 14).Draw(t, "change") {
	case 0:
		m.spec.Image = fmt.Sprintf("flink:1.20.%d", rapid.IntRange(0, 9).Draw(t, "patch"))
	case 1:
		p := int32(rapid.IntRange(1, 4).Draw(t, "parallelism"))
		m.spec.Job.Parallelism = &p
	case 2:
		modes := []flinkv1beta1.UpgradeMode{flinkv1beta1.UpgradeModeStateless, flinkv1beta1.UpgradeModeSavepoint, flinkv1beta1.UpgradeModeLastState}
		m.spec.Job.UpgradeMode = rapid.SampledFrom(modes).Draw(t, "mode")
	case 3:
		m.spec.FlinkConfiguration.Set("pipeline.name", rapid.StringMatching(`[a-z]{3}`).Draw(t, "name"))
	case 4:
		// An image that cannot be pulled: the upgrade never becomes stable (and is rolled
		// back when rollback is on).
		m.spec.Image = fmt.Sprintf("flink:missing-%d", rapid.IntRange(0, 9).Draw(t, "patch"))
	case 5:
		on := rapid.Bool().Draw(t, "rollback")
		m.spec.FlinkConfiguration.Set("kubernetes.operator.deployment.rollback.enabled", fmt.Sprint(on))
		m.spec.FlinkConfiguration.Set("kubernetes.operator.deployment.readiness.timeout", "2m")
	case 6:
		// Periodic savepoints with a short history: disposals run alongside everything else.
		every := rapid.SampledFrom([]string{"0", "45s", "2m"}).Draw(t, "periodic")
		m.spec.FlinkConfiguration.Set("kubernetes.operator.periodic.savepoint.interval", every)
		m.spec.FlinkConfiguration.Set("kubernetes.operator.savepoint.history.max.count", "2")
	case 7:
		// kubectl scale: TaskManager replicas, in place when the slots suffice (standalone);
		// in native mode they set the parallelism, and the change redeploys.
		n := int32(rapid.IntRange(1, 3).Draw(t, "taskmanagers"))
		m.spec.TaskManager = &flinkv1beta1.TaskManagerSpec{Replicas: &n}
	case 8:
		autoscaleSpec(t, &m.spec)
	case 9:
		restSSLSpec(t, &m.spec)
	case 10:
		// kubectl's restart of the cluster and job: a new nonce restarts them with the
		// upgrade mode, which the invariants hold to the same rules as any upgrade.
		n := rapid.Int64Range(1, 5).Draw(t, "restartNonce")
		m.spec.RestartNonce = &n
	case 11:
		// A Flink minor version upgrade: the image and flinkVersion move together.
		v := rapid.SampledFrom([]string{"19", "20"}).Draw(t, "minor")
		m.spec.Image, m.spec.FlinkVersion = "flink:1."+v, flinkv1beta1.FlinkVersion("v1_"+v)
	case 12:
		// Restarting failed jobs, and the cluster health check, on or off: a failing job is
		// then restarted by the operator rather than left FAILED.
		m.spec.FlinkConfiguration.Set("kubernetes.operator.job.restart.failed", fmt.Sprint(rapid.Bool().Draw(t, "restartFailed")))
		m.spec.FlinkConfiguration.Set("kubernetes.operator.cluster.health-check.enabled", fmt.Sprint(rapid.Bool().Draw(t, "healthCheck")))
		m.spec.FlinkConfiguration.Set("kubernetes.operator.cluster.health-check.restarts.threshold", fmt.Sprint(rapid.IntRange(2, 64).Draw(t, "restarts")))
	case 13:
		// Native (Flink's resource manager makes the TaskManager pods) or standalone (the
		// operator's TaskManager Deployment): a change of mode redeploys.
		m.spec.Mode = rapid.SampledFrom(deploymentModes).Draw(t, "deploymentMode")
	case 14:
		// A pod template of one field family, common or the TaskManagers'.
		if rapid.Bool().Draw(t, "commonTemplate") {
			m.spec.PodTemplate = podTemplateFamily(t, "template")
		} else {
			m.spec.TaskManager = &flinkv1beta1.TaskManagerSpec{PodTemplate: podTemplateFamily(t, "template"), Replicas: replicasOf(m.spec.TaskManager)}
		}
	}
	m.apply(t)
	waits := []time.Duration{time.Second, 10 * time.Second, time.Minute}
	if v, _ := m.spec.FlinkConfiguration.Get("job.autoscaler.enabled"); v == "true" {
		waits = append(waits, 6*time.Minute) // a metrics window after the stabilization interval
	}
	m.run(t, rapid.SampledFrom(waits).Draw(t, "wait"))
}

func (m *machine) setState(t *rapid.T, s flinkv1beta1.JobState) {
	if !m.exists {
		t.Skip("no resource")
	}
	m.spec.Job.State = s
	m.apply(t)
	m.run(t, 10*time.Second)
}

func (m *machine) savepoint(t *rapid.T) {
	if !m.exists {
		t.Skip("no resource")
	}
	m.nonce++
	n := m.nonce
	m.spec.Job.SavepointTriggerNonce = &n
	m.apply(t)
	m.run(t, 5*time.Second)
}

func (m *machine) fault(t *rapid.T) {
	m.inject(t, chaos.Classes, resource, m.stats)
	m.run(t, 5*time.Second)
}

func (m *machine) delete(t *rapid.T) {
	if !m.exists {
		t.Skip("no resource")
	}
	// An apply while an earlier deletion was still finishing updated the terminating object,
	// which is then gone: deleting it again finds nothing, as kubectl delete would.
	if err := m.w.Delete(resource); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	m.exists = false
	m.nonce = 0
	m.spec = BaseSpec()
	m.run(t, 30*time.Second)
}

// actions are the job actions and the snapshot resource actions.
func (m *machine) actions() map[string]func(*rapid.T) {
	a := jobActions(m, m.stats)
	a["snapshot"] = func(t *rapid.T) { m.snapshot(t); m.stats.Actions++ }
	a["deleteSnapshot"] = func(t *rapid.T) { m.deleteSnapshot(t); m.stats.Actions++ }
	return a
}

// jobDriver is what the machines that drive one job (a FlinkDeployment's, a session job's)
// offer as actions.
type jobDriver interface {
	changeSpec(t *rapid.T)
	setState(t *rapid.T, s flinkv1beta1.JobState)
	savepoint(t *rapid.T)
	fault(t *rapid.T)
	delete(t *rapid.T)
	run(t *rapid.T, d time.Duration)
	Check(t *rapid.T)
}

// jobActions is the action set of a job machine, each counted in stats.
func jobActions(m jobDriver, stats *Stats) map[string]func(*rapid.T) {
	count := func(f func(*rapid.T)) func(*rapid.T) {
		return func(t *rapid.T) { f(t); stats.Actions++ }
	}
	return map[string]func(*rapid.T){
		"changeSpec": count(m.changeSpec),
		"suspend":    count(func(t *rapid.T) { m.setState(t, flinkv1beta1.JobStateSuspended) }),
		"resume":     count(func(t *rapid.T) { m.setState(t, flinkv1beta1.JobStateRunning) }),
		"savepoint":  count(m.savepoint),
		"advance": count(func(t *rapid.T) {
			m.run(t, time.Duration(rapid.IntRange(1, 120).Draw(t, "seconds"))*time.Second)
		}),
		"fault":  count(m.fault),
		"delete": count(m.delete),
		"":       m.Check,
	}
}

// healFaults clears the lasting faults of a resource's Flink cluster.
func healFaults(w *harness.World, name string) {
	w.Cluster(name, func(c *fakeflink.Cluster) {
		c.HangSavepoints(false)
		c.FailCheckpoints(false)
		c.FailNextSavepoints(0)
		c.SetRESTFault(fakeflink.RESTHealthy, w.Now())
	})
}

// settle clears the lasting faults, lets the world run, and checks that the resource
// converges and then stays put with no further status writes (invariant 5).
func (m *machine) settle(t *rapid.T) {
	healFaults(m.w, resource)
	periodic, _ := m.spec.FlinkConfiguration.Get("kubernetes.operator.periodic.savepoint.interval")
	autoscaled := autoscalerOff(&m.spec)
	if m.exists && (periodic != "" && periodic != "0" || autoscaled) {
		// Periodic savepoints and the autoscaler write by design; the quiet check needs them off.
		m.spec.FlinkConfiguration.Set("kubernetes.operator.periodic.savepoint.interval", "0")
		m.apply(t)
	}
	m.converge(t, resource, func() (bool, string) { return m.checker.Converged(resource) },
		func() string { return m.checker.ResourceVersion(resource) })
}

// restSSLSpec turns the REST endpoint's SSL on or off (and client authentication with it):
// every upgrade across the switch talks to the old cluster as it serves and to the new one as
// it serves, and a call in the wrong scheme fails in the world as on a cluster.
func restSSLSpec(t *rapid.T, spec *flinkv1beta1.FlinkDeploymentSpec) {
	on := rapid.Bool().Draw(t, "rest-ssl")
	spec.FlinkConfiguration.Set("security.ssl.rest.enabled", fmt.Sprint(on))
	spec.FlinkConfiguration.Set("security.ssl.rest.keystore", "/opt/flink/tls-cert/keystore.p12")
	spec.FlinkConfiguration.Set("security.ssl.rest.truststore", "/opt/flink/tls-cert/truststore.p12")
	spec.FlinkConfiguration.Set("security.ssl.rest.authentication-enabled", fmt.Sprint(on && rapid.Bool().Draw(t, "rest-ssl-auth")))
}

// replicasOf keeps the TaskManager replicas a spec had.
func replicasOf(tm *flinkv1beta1.TaskManagerSpec) *int32 {
	if tm == nil {
		return nil
	}
	return tm.Replicas
}
