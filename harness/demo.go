package harness

import (
	"fmt"
	"io"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/flinkop/flinkop/chaos"
	"github.com/flinkop/flinkop/fakeflink"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// Phase projects a FlinkDeployment's status onto the seed state machine's phases (NEW,
// STARTING, READY, RUNNING, SAVEPOINTING, UPDATING, DELETING), for people reading traces.
func Phase(d *flinkv1beta1.FlinkDeployment) string {
	st := d.Status
	sp := st.JobStatus.SavepointInfo
	switch {
	case d.DeletionTimestamp != nil:
		return "DELETING"
	case st.ReconciliationStatus.LastReconciledSpec == "":
		return "NEW"
	case sp != nil && sp.TriggerID != "":
		return "SAVEPOINTING"
	case st.ReconciliationStatus.State == flinkv1beta1.ReconciliationUpgrading:
		return "UPDATING"
	case st.JobStatus.State == flinkv1beta1.JobStatusSuspended:
		return "SUSPENDED"
	case st.JobManagerDeploymentStatus != flinkv1beta1.JobManagerReady:
		return "STARTING"
	case st.JobStatus.State == flinkv1beta1.JobStatusRunning:
		return "RUNNING"
	}
	return "READY"
}

// demoStage is one stage of the demo: what to do, and when it is done.
type demoStage struct {
	title string
	do    func(w *World, d *flinkv1beta1.FlinkDeployment) error
	done  func(d *flinkv1beta1.FlinkDeployment, gone bool) bool
}

// DemoDeployment is the FlinkDeployment the demo walks through its life.
func DemoDeployment() *flinkv1beta1.FlinkDeployment {
	p := int32(2)
	d := &flinkv1beta1.FlinkDeployment{Spec: flinkv1beta1.FlinkDeploymentSpec{
		Image: "flink:1.20", FlinkVersion: "v1_20",
		FlinkConfiguration: flinkv1beta1.NewFlinkConfiguration(map[string]string{
			"taskmanager.numberOfTaskSlots": "2", "execution.checkpointing.interval": "10s",
			"state.checkpoints.dir": "file:///flink-data/checkpoints", "state.savepoints.dir": "file:///flink-data/savepoints",
			"high-availability.type": "kubernetes", "high-availability.storageDir": "file:///flink-data/ha",
		}),
		Job: &flinkv1beta1.JobSpec{
			JarURI: "local:///opt/flink/examples/streaming/StateMachineExample.jar", Parallelism: &p,
			UpgradeMode: flinkv1beta1.UpgradeModeSavepoint,
		},
	}}
	d.Name = "demo"
	return d
}

func demoStages() []demoStage {
	running := func(d *flinkv1beta1.FlinkDeployment, _ bool) bool {
		return d.Status.LifecycleState == flinkv1beta1.LifecycleStable && d.Status.JobStatus.State == flinkv1beta1.JobStatusRunning &&
			d.Status.ObservedGeneration == d.Generation
	}
	apply := func(f func(*flinkv1beta1.FlinkDeployment)) func(*World, *flinkv1beta1.FlinkDeployment) error {
		return func(w *World, d *flinkv1beta1.FlinkDeployment) error { f(d); return w.Apply(d) }
	}
	return []demoStage{
		{"deploy a savepoint-mode job with Kubernetes HA", apply(func(*flinkv1beta1.FlinkDeployment) {}), running},
		{
			"let it run a minute", func(w *World, _ *flinkv1beta1.FlinkDeployment) error { return w.RunFor(time.Minute) },
			func(*flinkv1beta1.FlinkDeployment, bool) bool { return true },
		},
		{"take a savepoint (savepointTriggerNonce: 1)", apply(func(d *flinkv1beta1.FlinkDeployment) {
			n := int64(1)
			d.Spec.Job.SavepointTriggerNonce = &n
		}), func(d *flinkv1beta1.FlinkDeployment, _ bool) bool {
			sp := d.Status.JobStatus.SavepointInfo
			return sp != nil && sp.LastSavepoint != nil && sp.TriggerID == ""
		}},
		{"upgrade: parallelism 2 → 4 (stop with savepoint, restore it)", apply(func(d *flinkv1beta1.FlinkDeployment) {
			p := int32(4)
			d.Spec.Job.Parallelism = &p
		}), running},
		{"crash the JobManager (HA recovers the job)", func(w *World, d *flinkv1beta1.FlinkDeployment) error {
			if err := w.RunFor(35 * time.Second); err != nil { // a few checkpoints first
				return err
			}
			if err := w.Inject(chaos.JobManagerCrash{}, d.Name); err != nil {
				return err
			}
			w.Cluster(d.Name, func(c *fakeflink.Cluster) {
				if starts := c.Starts(); len(starts) > 0 {
					s := starts[len(starts)-1]
					note := fmt.Sprintf("new JobManager recovered job %s from HA: %s (offset %d)", s.JobID, s.RestorePath, s.Offset)
					w.Trace.add(w.Now(), "state", d.Name, note)
					w.notes = append(w.notes, note)
				}
			})
			return w.RunFor(40 * time.Second)
		}, running},
		{
			"suspend (job.state: suspended)", apply(func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.State = flinkv1beta1.JobStateSuspended }),
			func(d *flinkv1beta1.FlinkDeployment, _ bool) bool {
				return d.Status.LifecycleState == flinkv1beta1.LifecycleSuspended
			},
		},
		{"resume (job.state: running)", apply(func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.State = flinkv1beta1.JobStateRunning }), running},
		{
			"delete", func(w *World, d *flinkv1beta1.FlinkDeployment) error { return w.Delete(d.Name) },
			func(_ *flinkv1beta1.FlinkDeployment, gone bool) bool { return gone },
		},
	}
}

// RunDemo walks DemoDeployment through its life in a world on the fake backend seeded with
// seed, printing a table of phases, states and Events to out, and checks the invariants after
// every step.
func RunDemo(out io.Writer, seed int64) (*World, error) {
	b, err := FakeBackend()
	if err != nil {
		return nil, err
	}
	return RunDemoOn(out, b, seed)
}

// RunDemoOn is RunDemo on backend b.
func RunDemoOn(out io.Writer, b Backend, seed int64) (*World, error) {
	w := NewWorldOn(b, seed)
	c := NewChecker(w)
	d := DemoDeployment()
	p := &demoPrinter{out: out, w: w}
	p.header()
	for i, s := range demoStages() {
		_, _ = fmt.Fprintf(out, "\n== %d. %s\n", i+1, s.title)
		w.Trace.add(w.Now(), "stage", d.Name, s.title)
		if err := s.do(w, d); err != nil {
			return w, fmt.Errorf("%s: %w", s.title, err)
		}
		for _, n := range w.notes {
			_, _ = fmt.Fprintf(out, "          %s\n", n)
		}
		w.notes = nil
		if err := p.until(c, d.Name, s.done); err != nil {
			return w, fmt.Errorf("%s: %w", s.title, err)
		}
	}
	_, _ = fmt.Fprintf(out, "\nDone at virtual time %s: every invariant held after each of the world's steps.\n", w.Now().Sub(Start))
	return w, nil
}

type demoPrinter struct {
	out    io.Writer
	w      *World
	last   string
	events int
}

func (p *demoPrinter) header() {
	_, _ = fmt.Fprintf(p.out, "%-9s %-13s %-11s %-12s %-19s %s\n", "TIME", "PHASE", "JOB", "LIFECYCLE", "JOBMANAGER", "EVENT")
}

// until steps the world until done holds (at most 30 virtual minutes), printing changes.
func (p *demoPrinter) until(c *Checker, name string, done func(*flinkv1beta1.FlinkDeployment, bool) bool) error {
	deadline := p.w.Now().Add(30 * time.Minute)
	for p.w.Now().Before(deadline) {
		if _, err := p.w.Step(); err != nil {
			return err
		}
		if v := c.Check(name); len(v) > 0 {
			return fmt.Errorf("invariant violated: %s", strings.Join(v, "; "))
		}
		d, err := p.w.Get(name)
		gone := apierrors.IsNotFound(err)
		if err != nil && !gone {
			return err
		}
		p.print(d, gone)
		if done(d, gone) {
			return nil
		}
	}
	return fmt.Errorf("not done after 30 virtual minutes")
}

func (p *demoPrinter) print(d *flinkv1beta1.FlinkDeployment, gone bool) {
	at := p.w.Now().Sub(Start).Truncate(time.Second).String()
	row := "deleted"
	if !gone {
		row = fmt.Sprintf("%-13s %-11s %-12s %-19s", Phase(d), orDash(string(d.Status.JobStatus.State)),
			orDash(string(d.Status.LifecycleState)), orDash(string(d.Status.JobManagerDeploymentStatus)))
	}
	events := p.w.Events()
	for _, e := range events[p.events:] {
		_, _ = fmt.Fprintf(p.out, "%-9s %s %s %s: %s\n", at, row, e.Type, e.Reason, e.Message)
		p.last = row
	}
	p.events = len(events)
	if row != p.last {
		_, _ = fmt.Fprintf(p.out, "%-9s %s\n", at, row)
		p.last = row
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
