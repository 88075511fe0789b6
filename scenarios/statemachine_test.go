package scenarios

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/flinkop/flinkop/chaos"
	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/harness"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

const resource = "job"

// machine drives one FlinkDeployment through random spec changes, faults and operator
// restarts, checking the invariants after every step of the world.
type machine struct {
	w       *harness.World
	checker *harness.Checker
	spec    flinkv1beta1.FlinkDeploymentSpec
	exists  bool
	nonce   int64
	faults  int
}

func newMachine(t *rapid.T) *machine {
	w, err := harness.NewWorld(rapid.Int64().Draw(t, "seed"))
	if err != nil {
		t.Fatal(err)
	}
	m := &machine{w: w, checker: harness.NewChecker(w), spec: baseSpec()}
	m.apply(t)
	m.run(t, 20*time.Second)
	return m
}

// baseSpec is a stateful job with HA, checkpoints and savepoints, so every upgrade mode is
// valid.
func baseSpec() flinkv1beta1.FlinkDeploymentSpec {
	p := int32(2)
	return flinkv1beta1.FlinkDeploymentSpec{
		Image: "flink:1.20", FlinkVersion: "v1_20",
		FlinkConfiguration: flinkv1beta1.NewFlinkConfiguration(map[string]string{
			"taskmanager.numberOfTaskSlots": "2", "execution.checkpointing.interval": "10s",
			"state.checkpoints.dir": "file:///data/cp", "state.savepoints.dir": "file:///data/sp",
			"high-availability.type": "kubernetes", "high-availability.storageDir": "file:///data/ha",
		}),
		Job: &flinkv1beta1.JobSpec{JarURI: "local:///opt/flink/job.jar", Parallelism: &p, UpgradeMode: flinkv1beta1.UpgradeModeSavepoint},
	}
}

func (m *machine) apply(t *rapid.T) {
	d := &flinkv1beta1.FlinkDeployment{Spec: *m.spec.DeepCopy()}
	d.Name = resource
	if err := m.w.Apply(d); err != nil {
		t.Fatalf("apply: %v", err)
	}
	m.exists = true
}

// run lets virtual time pass, checking the invariants after every step.
func (m *machine) run(t *rapid.T, d time.Duration) {
	end := m.w.Now().Add(d)
	for m.w.Now().Before(end) {
		if _, err := m.w.Step(); err != nil {
			t.Fatalf("step: %v\n%s", err, m.w.Trace)
		}
		if v := m.checker.Check(resource); len(v) > 0 {
			t.Fatalf("invariant violated at %s:\n  %s\ntrace:\n%s", m.w.Now().Sub(harness.Start), strings.Join(v, "\n  "), m.w.Trace)
		}
	}
}

func (m *machine) changeSpec(t *rapid.T) {
	if !m.exists {
		m.apply(t)
		return
	}
	switch rapid.IntRange(0, 3).Draw(t, "change") {
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
	}
	m.apply(t)
	m.run(t, rapid.SampledFrom([]time.Duration{time.Second, 10 * time.Second, time.Minute}).Draw(t, "wait"))
}

func (m *machine) setState(t *rapid.T, s flinkv1beta1.JobState) {
	if !m.exists {
		return
	}
	m.spec.Job.State = s
	m.apply(t)
	m.run(t, 10*time.Second)
}

// Check runs after every action.
func (m *machine) Check(t *rapid.T) {
	if v := m.checker.Check(resource); len(v) > 0 {
		t.Fatalf("invariant violated:\n  %s\ntrace:\n%s", strings.Join(v, "\n  "), m.w.Trace)
	}
}

func (m *machine) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"changeSpec": m.changeSpec,
		"suspend":    func(t *rapid.T) { m.setState(t, flinkv1beta1.JobStateSuspended) },
		"resume":     func(t *rapid.T) { m.setState(t, flinkv1beta1.JobStateRunning) },
		"savepoint": func(t *rapid.T) {
			if !m.exists {
				t.Skip("no resource")
			}
			m.nonce++
			n := m.nonce
			m.spec.Job.SavepointTriggerNonce = &n
			m.apply(t)
			m.run(t, 5*time.Second)
		},
		"advance": func(t *rapid.T) {
			m.run(t, time.Duration(rapid.IntRange(1, 120).Draw(t, "seconds"))*time.Second)
		},
		"fault": func(t *rapid.T) {
			f := rapid.SampledFrom(chaos.Classes).Draw(t, "fault")
			if _, ok := f.(chaos.JobManagerCrash); ok {
				m.checker.JobManagerCrashed(resource)
			}
			m.w.Trace.Add(m.w.Now(), "fault", resource, f.Name())
			if err := f.Apply(m.w, resource); err != nil {
				t.Fatalf("fault %s: %v", f.Name(), err)
			}
			m.faults++
			m.run(t, 5*time.Second)
		},
		"delete": func(t *rapid.T) {
			if !m.exists {
				t.Skip("no resource")
			}
			if err := m.w.Delete(resource); err != nil {
				t.Fatal(err)
			}
			m.exists = false
			m.nonce = 0
			m.spec = baseSpec()
			m.run(t, 30*time.Second)
		},
		"": m.Check,
	}
}

// settle clears the lasting faults, lets the world run, and checks that the resource
// converges and then stays put with no further status writes (invariant 5).
func (m *machine) settle(t *rapid.T) {
	m.w.Cluster(resource, func(c *fakeflink.Cluster) {
		c.HangSavepoints(false)
		c.FailCheckpoints(false)
		c.FailNextSavepoints(0)
		c.SetRESTFault(fakeflink.RESTHealthy, m.w.Now())
	})
	m.run(t, 10*time.Minute)
	ok, why := m.checker.Converged(resource)
	if !ok {
		t.Fatalf("not converged 10 virtual minutes after the last fault and spec change: %s\ntrace:\n%s", why, m.w.Trace)
	}
	rv := m.checker.ResourceVersion(resource)
	m.run(t, 5*time.Minute)
	if now := m.checker.ResourceVersion(resource); now != rv {
		d, _ := m.w.Get(resource)
		t.Fatalf("converged resource kept being written (resourceVersion %s → %s); status %+v", rv, now, d.Status)
	}
}

// TestOperatorStateMachine is the property test: random spec changes, suspends and resumes,
// savepoints, deletions, faults and operator restarts never break the invariants, and the
// resource converges once faults and changes stop.
func TestOperatorStateMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := newMachine(t)
		t.Repeat(m.actions())
		m.settle(t)
	})
}
