package scenarios

import (
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"pgregory.net/rapid"

	"github.com/flinkop/flinkop/chaos"
	"github.com/flinkop/flinkop/harness"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// The session machine's resources: a session cluster and one FlinkSessionJob on it.
const (
	sessionCluster = "sess"
	sessionJobName = "etl"
)

// sessionFaults are the fault classes the session machine injects into the session cluster.
// HA metadata loss is left out: without it a crashed session cluster loses its jobs, which the
// operator reports (JobMissing) and leaves to the user, so nothing would converge.
var sessionFaults = slices.DeleteFunc(slices.Clone(chaos.Classes), func(f chaos.Fault) bool {
	_, ha := f.(chaos.HAMetadataLoss)
	return ha
})

// sessionMachine drives a FlinkSessionJob on a session cluster through random spec changes,
// suspends, savepoints, deletions, faults and operator restarts, checking the invariants
// (the session cluster's and S1–S3) after every step.
type sessionMachine struct {
	checked
	spec   flinkv1beta1.FlinkSessionJobSpec
	exists bool
	nonce  int64
	stats  *Stats
}

// SessionProperty is the state-machine property of session jobs on worlds from newBackend
// (nil: the fake backend): random actions never break an invariant, and the session job
// converges once they stop.
func SessionProperty(newBackend func() (harness.Backend, error), stats *Stats) func(*rapid.T) {
	return func(t *rapid.T) {
		st := runStats(stats)
		w := newWorld(t, newBackend)
		stats.keep(w)
		m := &sessionMachine{checked: newChecked(w, sessionCluster), spec: BaseSessionJob(sessionCluster), stats: st}
		m.checker.WatchSessionCluster(sessionCluster)
		cluster := BaseSpec()
		cluster.Job = nil
		cluster.TaskManager = &flinkv1beta1.TaskManagerSpec{Replicas: ptr(int32(2))}
		if rapid.Bool().Draw(t, "nativeSizing") {
			cluster.TaskManager = nil // native mode: sized for its session job's parallelism
		}
		d := &flinkv1beta1.FlinkDeployment{Spec: cluster}
		d.Name = sessionCluster
		if err := w.Apply(d); err != nil {
			t.Fatalf("apply: %v", err)
		}
		m.apply(t)
		m.run(t, 20*time.Second)
		defer func() { st.Reconciles = m.w.Reconciles }()
		t.Repeat(m.actions())
		m.settle(t)
	}
}

func ptr[T any](v T) *T { return &v }

func (m *sessionMachine) apply(t *rapid.T) {
	j := &flinkv1beta1.FlinkSessionJob{Spec: *m.spec.DeepCopy()}
	j.Name = sessionJobName
	if err := m.w.ApplySessionJob(j); err != nil {
		t.Fatalf("apply session job: %v", err)
	}
	m.exists = true
}

func (m *sessionMachine) changeSpec(t *rapid.T) {
	if !m.exists {
		m.apply(t)
		m.run(t, 10*time.Second)
		return
	}
	switch rapid.IntRange(0, 5).Draw(t, "change") {
	case 0:
		m.spec.Job.Parallelism = ptr(int32(rapid.IntRange(1, 2).Draw(t, "parallelism")))
	case 1:
		modes := []flinkv1beta1.UpgradeMode{flinkv1beta1.UpgradeModeStateless, flinkv1beta1.UpgradeModeSavepoint, flinkv1beta1.UpgradeModeLastState}
		m.spec.Job.UpgradeMode = rapid.SampledFrom(modes).Draw(t, "mode")
	case 2:
		n := int64(rapid.IntRange(1, 1000).Draw(t, "restartNonce"))
		m.spec.RestartNonce = &n
	case 3:
		m.spec.Job.EntryClass = rapid.SampledFrom([]string{"", "org.example.A", "org.example.B"}).Draw(t, "entryClass")
	case 4:
		// A job that fails for good is submitted again (kubernetes.operator.job.restart.failed).
		on := rapid.Bool().Draw(t, "restartFailed")
		if m.spec.FlinkConfiguration == nil {
			m.spec.FlinkConfiguration = flinkv1beta1.FlinkConfiguration{}
		}
		m.spec.FlinkConfiguration.Set("kubernetes.operator.job.restart.failed", fmt.Sprint(on))
	case 5:
		// Periodic savepoints with a short history: disposals through the session cluster.
		if m.spec.FlinkConfiguration == nil {
			m.spec.FlinkConfiguration = flinkv1beta1.FlinkConfiguration{}
		}
		m.spec.FlinkConfiguration.Set("kubernetes.operator.periodic.savepoint.interval", rapid.SampledFrom([]string{"0", "45s", "2m"}).Draw(t, "periodic"))
		m.spec.FlinkConfiguration.Set("kubernetes.operator.savepoint.history.max.count", "2")
	}
	m.apply(t)
	m.run(t, rapid.SampledFrom([]time.Duration{time.Second, 10 * time.Second, time.Minute}).Draw(t, "wait"))
}

func (m *sessionMachine) setState(t *rapid.T, s flinkv1beta1.JobState) {
	if !m.exists {
		t.Skip("no session job")
	}
	m.spec.Job.State = s
	m.apply(t)
	m.run(t, 10*time.Second)
}

func (m *sessionMachine) savepoint(t *rapid.T) {
	if !m.exists {
		t.Skip("no session job")
	}
	m.nonce++
	n := m.nonce
	m.spec.Job.SavepointTriggerNonce = &n
	m.apply(t)
	m.run(t, 5*time.Second)
}

func (m *sessionMachine) fault(t *rapid.T) {
	m.inject(t, sessionFaults, sessionCluster, m.stats)
	m.run(t, 5*time.Second)
}

func (m *sessionMachine) delete(t *rapid.T) {
	if !m.exists {
		t.Skip("no session job")
	}
	if err := m.w.DeleteSessionJob(sessionJobName); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	m.exists, m.nonce, m.spec = false, 0, BaseSessionJob(sessionCluster)
	m.run(t, 30*time.Second)
}

func (m *sessionMachine) actions() map[string]func(*rapid.T) { return jobActions(m, m.stats) }

// settle clears the lasting faults, lets the world run, and checks that the session job
// converges and then stays put with no further writes.
func (m *sessionMachine) settle(t *rapid.T) {
	healFaults(m.w, sessionCluster)
	if periodic, _ := m.spec.FlinkConfiguration.Get("kubernetes.operator.periodic.savepoint.interval"); m.exists && periodic != "" && periodic != "0" {
		// Periodic savepoints write by design; the quiet check needs them off.
		m.spec.FlinkConfiguration.Set("kubernetes.operator.periodic.savepoint.interval", "0")
		m.apply(t)
	}
	m.converge(t, "session job "+sessionJobName, func() (bool, string) { return m.checker.SessionJobConverged(sessionJobName) },
		func() string { return m.checker.SessionJobResourceVersion(sessionJobName) })
}
