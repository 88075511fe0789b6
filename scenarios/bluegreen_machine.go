package scenarios

import (
	"context"
	"fmt"
	"strings"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/harness"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/bluegreen"
)

// blueGreenName is the blue/green machine's resource; its children are <name>-blue and
// <name>-green.
const blueGreenName = "bg"

// blueGreenMachine drives a FlinkBlueGreenDeployment through template changes (switches,
// in-place patches, redeploys), suspends and resumes, new children that never start, failed
// savepoints, faults on the active child, operator restarts and deletions, checking every
// invariant (B1–B5 and the children's own) after every step.
type blueGreenMachine struct {
	checked
	spec    flinkv1beta1.FlinkDeploymentSpec
	exists  bool
	ingress bool // spec.ingress is set
	nonce   int64
	stats   *Stats
}

// BlueGreenProperty is the state-machine property of blue/green deployments on worlds from
// newBackend (nil: the fake backend): random actions never break an invariant, and the
// resource converges (one ready child, or a suspended one) once they stop.
func BlueGreenProperty(newBackend func() (harness.Backend, error), stats *Stats) func(*rapid.T) {
	return func(t *rapid.T) {
		st := runStats(stats)
		w := newWorld(t, newBackend)
		stats.keep(w)
		m := &blueGreenMachine{checked: newChecked(w, blueGreenChildren()...), spec: BaseSpec(), stats: st}
		m.checker.WatchBlueGreen(blueGreenName)
		m.apply(t)
		m.run(t, 20*time.Second)
		defer func() { st.Reconciles = m.w.Reconciles }()
		count := func(f func(*rapid.T)) func(*rapid.T) { return func(t *rapid.T) { f(t); st.Actions++ } }
		t.Repeat(map[string]func(*rapid.T){
			"change":        count(m.change),
			"suspend":       count(func(t *rapid.T) { m.setState(t, flinkv1beta1.JobStateSuspended) }),
			"resume":        count(func(t *rapid.T) { m.setState(t, flinkv1beta1.JobStateRunning) }),
			"breakNext":     count(m.breakNext),
			"failSavepoint": count(m.failSavepoint),
			"fault":         count(m.fault),
			"restart":       count(func(t *rapid.T) { m.w.RestartOperator(); m.run(t, 5*time.Second) }),
			"advance": count(func(t *rapid.T) {
				m.run(t, time.Duration(rapid.IntRange(1, 180).Draw(t, "seconds"))*time.Second)
			}),
			"delete": count(m.delete),
			"":       m.Check,
		})
		m.settle(t)
	}
}

// blueGreenChildren are the names of the blue/green deployment's two children.
func blueGreenChildren() []string {
	return []string{flinkv1beta1.Blue.ChildName(blueGreenName), flinkv1beta1.Green.ChildName(blueGreenName)}
}

func (m *blueGreenMachine) apply(t *rapid.T) {
	b := &flinkv1beta1.FlinkBlueGreenDeployment{}
	b.Name = blueGreenName
	spec := m.spec.DeepCopy()
	b.Spec.Template.Spec = spec
	if m.ingress {
		b.Spec.Ingress = &flinkv1beta1.IngressSpec{Template: "{{name}}.{{namespace}}.example.com"}
	}
	b.Spec.Configuration = map[string]string{
		flinkv1beta1.BlueGreenDeletionDelay:    "2s",
		flinkv1beta1.BlueGreenAbortGracePeriod: "3min",
	}
	if err := m.w.ApplyBlueGreen(b); err != nil {
		t.Fatalf("apply: %v", err)
	}
	m.exists = true
}

// change makes a random change of the template: one that switches colour, one that patches
// the active child in place, or a savepoint redeploy.
func (m *blueGreenMachine) change(t *rapid.T) {
	if !m.exists {
		m.apply(t)
		m.run(t, 10*time.Second)
		return
	}
	switch rapid.IntRange(0, 5).Draw(t, "change") {
	case 0:
		m.spec.Image = rapid.SampledFrom([]string{"flink:1.20", "flink:1.20.1", "flink:1.20.2"}).Draw(t, "image")
	case 1:
		m.spec.Job.Parallelism = ptr(int32(rapid.IntRange(1, 2).Draw(t, "parallelism")))
	case 2:
		modes := []flinkv1beta1.UpgradeMode{flinkv1beta1.UpgradeModeStateless, flinkv1beta1.UpgradeModeSavepoint, flinkv1beta1.UpgradeModeLastState}
		m.spec.Job.UpgradeMode = rapid.SampledFrom(modes).Draw(t, "mode")
	case 3:
		m.nonce++
		m.spec.RestartNonce = ptr(m.nonce)
	case 4:
		m.spec.FlinkConfiguration.Set("kubernetes.operator.savepoint.history.max.count", fmt.Sprint(rapid.IntRange(1, 5).Draw(t, "history")))
	case 5:
		m.ingress = !m.ingress // the resource's own Ingress, to its active child
	}
	m.apply(t)
	m.run(t, rapid.SampledFrom([]time.Duration{time.Second, 20 * time.Second, 2 * time.Minute}).Draw(t, "wait"))
}

func (m *blueGreenMachine) setState(t *rapid.T, s flinkv1beta1.JobState) {
	if !m.exists {
		t.Skip("no resource")
	}
	m.spec.Job.State = s
	m.apply(t)
	m.run(t, 20*time.Second)
}

// breakNext makes the JobManager of the child not active now slow to start: the next switch
// may not be ready within the abort grace period.
func (m *blueGreenMachine) breakNext(t *rapid.T) {
	b, err := m.w.GetBlueGreen(blueGreenName)
	if err != nil {
		t.Skip("no resource")
	}
	next := flinkv1beta1.Green
	if b.Status.BlueGreenState == flinkv1beta1.BlueGreenActiveGreen {
		next = flinkv1beta1.Blue
	}
	d := time.Duration(rapid.IntRange(1, 8).Draw(t, "minutes")) * time.Minute
	m.w.DelayJobManagerStart(next.ChildName(blueGreenName), d)
	m.w.Trace.Add(m.w.Now(), "fault", next.ChildName(blueGreenName), "next JobManager start delayed "+d.String())
}

// failSavepoint makes the active child's next savepoints fail.
func (m *blueGreenMachine) failSavepoint(t *rapid.T) {
	n := rapid.IntRange(1, 3).Draw(t, "failures")
	for _, child := range m.resources {
		m.w.Cluster(child, func(c *fakeflink.Cluster) { c.FailNextSavepoints(n) })
	}
	m.run(t, 5*time.Second)
}

// fault injects a fault class into a child's cluster.
func (m *blueGreenMachine) fault(t *rapid.T) {
	child := rapid.SampledFrom(m.resources).Draw(t, "child")
	if _, err := m.w.Get(child); err != nil {
		t.Skip("no such child")
	}
	m.inject(t, sessionFaults, child, m.stats)
	m.run(t, 5*time.Second)
}

func (m *blueGreenMachine) delete(t *rapid.T) {
	if !m.exists {
		t.Skip("no resource")
	}
	if err := m.w.DeleteBlueGreen(blueGreenName); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	m.exists, m.spec, m.ingress = false, BaseSpec(), false
	m.run(t, time.Minute)
}

// settle clears the faults, lets the world run, and checks that the resource converges: one
// child, ready (or suspended, as asked), and no switch in progress; a deleted resource leaves
// no child.
func (m *blueGreenMachine) settle(t *rapid.T) {
	for _, child := range m.resources {
		healFaults(m.w, child)
	}
	m.run(t, Settle)
	b, err := m.w.GetBlueGreen(blueGreenName)
	if !m.exists {
		for _, child := range m.resources {
			if _, err := m.w.Get(child); err == nil {
				t.Fatalf("%s left after its FlinkBlueGreenDeployment was deleted\ntrace:\n%s", child, m.w.Trace)
			}
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	st := b.Status
	active := flinkv1beta1.Blue
	switch st.BlueGreenState {
	case flinkv1beta1.BlueGreenActiveGreen:
		active = flinkv1beta1.Green
	case flinkv1beta1.BlueGreenActiveBlue:
	default:
		if m.spec.Job.State == flinkv1beta1.JobStateSuspended && st.BlueGreenState == flinkv1beta1.BlueGreenInitializingBlue {
			return
		}
		if st.JobStatus.State == flinkv1beta1.JobStatusFailing && strings.Contains(st.Error, "its status.error") {
			return // the only child refuses its spec (an upgrade that failed waits for a change): said so
		}
		t.Fatalf("not converged %s after the last change: state %s (%s)\ntrace:\n%s", Settle, st.BlueGreenState, st.Error, m.w.Trace)
	}
	d, err := m.w.Get(active.ChildName(blueGreenName))
	if err != nil {
		t.Fatalf("active child %s: %v\ntrace:\n%s", active.ChildName(blueGreenName), err, m.w.Trace)
	}
	if other, err := m.w.Get(active.Other().ChildName(blueGreenName)); err == nil && st.JobStatus.State != flinkv1beta1.JobStatusFailing {
		t.Fatalf("%s still exists (deleting: %v) with %s active and no failure\ntrace:\n%s", other.Name, other.DeletionTimestamp != nil, d.Name, m.w.Trace)
	}
	var ing networkingv1.Ingress
	err = m.w.Client.Get(context.Background(), client.ObjectKey{Namespace: m.w.Namespace, Name: blueGreenName}, &ing)
	switch {
	case m.ingress && err != nil:
		t.Fatalf("spec.ingress is set and there is no Ingress: %v\ntrace:\n%s", err, m.w.Trace)
	case m.ingress && ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name != d.Name+"-rest":
		t.Fatalf("the Ingress routes to %s, not to the active %s\ntrace:\n%s", ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name, d.Name, m.w.Trace)
	case !m.ingress && err == nil:
		t.Fatalf("spec.ingress is not set and Ingress %s exists\ntrace:\n%s", ing.Name, m.w.Trace)
	}
	suspended := m.spec.Job.State == flinkv1beta1.JobStateSuspended
	if !suspended && st.JobStatus.State == flinkv1beta1.JobStatusRunning && !bluegreen.Ready(d) {
		t.Fatalf("%s is active and RUNNING but its child is not ready: %s %s\ntrace:\n%s", blueGreenName, d.Status.LifecycleState, d.Status.JobStatus.State, m.w.Trace)
	}
}
