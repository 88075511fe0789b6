package harness

import (
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/flinkop/flinkop/chaos"
	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// Checker checks the world's invariants after every step (docs/testing.md lists them). It remembers what it
// saw: the newest snapshot of every job, the job starts, the observed generations.
type Checker struct {
	w *World
	// snapshots are the completed snapshots seen per job id.
	snapshots   map[string]map[string]fakeflink.Snapshot
	starts      map[string]int // job starts already checked, per cluster
	lastGen     map[string]int64
	lastJob     map[string]string // resource → id of the job that ran last
	deployedGen map[string]string // resource → JobManager generation annotation at the last start
	crashes     map[string]bool   // resource → a JobManager crash fault happened since the last start
	haLost      map[string]bool   // resource → its HA metadata was deleted by a fault since the last start
	// specs are the specs the resources had, per resource and generation, as their objects
	// carried them (the user's, never the operator's record of them in status): a start is
	// judged by the spec of the generation its JobManager was deployed from.
	specs map[string]*specHistory
	// lastState is the reconciliation state seen last, per resource (a rollback is judged
	// when it starts).
	lastState map[string]flinkv1beta1.ReconciliationState
	// lineage is when Flink itself last restarted a resource's job from older state after a
	// fault the operator cannot undo (HA metadata lost): snapshots before it do not count.
	lineage map[string]time.Time
	// failovers are the restarts of each job, per job id, that went back to an older
	// checkpoint: by Flink's restart strategy, and HA recoveries after a JobManager crash.
	failovers map[string][]fakeflink.Failover
	// knownSavepoints are the savepoint paths each resource's status has shown: what the
	// operator knew it could restore.
	knownSavepoints map[string]map[string]bool
	// sessions are the session clusters whose session jobs are checked too.
	sessions map[string]*sessionState
	// crons are the cron templates whose runs are checked too.
	crons map[string]*cronState
	// foreign are objects no Flink resource owns: the operator must not write them.
	foreign []foreignObject
	// waitsSeen is how many of the world's spec-change waits were checked already.
	waitsSeen int
	// scalingSeen is how many ScalingReport Events of each resource were checked already.
	scalingSeen map[string]int
	// snapshotPaths are the savepoints FlinkStateSnapshots took, to their names;
	// snapshotTriggers the trigger ids of their attempts, to their names.
	snapshotPaths    map[string]string
	snapshotTriggers map[string]string
	// blueGreens are the FlinkBlueGreenDeployments held to B1–B5 (WatchBlueGreen).
	blueGreens map[string]*blueGreenState
	// traced are the violations already written into the trace.
	traced map[string]bool
	// plain are the savepoints each FlinkDeployment's jobs ran on after (N5).
	plain map[string]*plainSavepoints
	// blueGreenChildren are the FlinkDeployments seen as children of a blue/green deployment
	// (N5 and N6 do not hold them; names of the world's one namespace).
	blueGreenChildren map[string]bool
	// lifecycles are the lifecycle transitions seen (Transitions), sessionLifecycles those of
	// the session jobs of watched session clusters (SessionJobTransitions).
	lifecycles, sessionLifecycles transitions
	// timeline is what sampleTimeline already drew into the trace.
	timeline timelineSeen
	// orphans are the native TaskManager pods whose JobManager Deployment is gone, to when
	// that was first seen (invariant P1).
	orphans map[string]time.Time
}

// NewChecker returns a checker of w.
func NewChecker(w *World) *Checker {
	c := &Checker{
		w: w, snapshots: map[string]map[string]fakeflink.Snapshot{}, starts: map[string]int{},
		lastGen: map[string]int64{}, lastJob: map[string]string{}, deployedGen: map[string]string{}, crashes: map[string]bool{},
		haLost: map[string]bool{}, lastState: map[string]flinkv1beta1.ReconciliationState{}, lineage: map[string]time.Time{}, specs: map[string]*specHistory{},
		failovers: map[string][]fakeflink.Failover{}, knownSavepoints: map[string]map[string]bool{},
		scalingSeen: map[string]int{}, traced: map[string]bool{},
	}
	if w != nil { // a checker of nothing, in tests of its parts
		w.checker = c
	}
	return c
}

// JobManagerCrashed tells the checker that a crash fault hit the resource's JobManager: the
// restart that follows is Flink's own recovery, not an operator deploy.
func (c *Checker) JobManagerCrashed(resource string) { c.crashes[resource] = true }

// Inject applies a fault to a resource of the checker's world and tells the checker first (see
// Injected): the one way the machines and scripts inject faults, so a fault the invariants must
// expect can never reach the world unannounced, and a legitimate recovery from it is never
// flagged as a violation.
func (c *Checker) Inject(f chaos.Fault, resource string) error {
	c.Injected(f, resource)
	return c.w.apply(f, resource)
}

// Inject is Checker.Inject through the world: the checker made for it last hears of the fault
// first (a world without one just applies it).
func (w *World) Inject(f chaos.Fault, resource string) error {
	if w.checker != nil {
		w.checker.Injected(f, resource)
	}
	return w.apply(f, resource)
}

// apply writes a fault into the trace and applies it to a resource of w, naming the fault in
// its error.
func (w *World) apply(f chaos.Fault, resource string) error {
	w.Trace.add(w.Clock.Now(), "fault", resource, f.Name())
	if err := f.Apply(w, resource); err != nil {
		return fmt.Errorf("fault %s: %w", f.Name(), err)
	}
	return nil
}

// Injected tells the checker about a fault injected into a resource's world, for the faults
// that change what the invariants expect, as each says itself (chaos.Expected): a JobManager
// that restarts without an operator deploy, HA metadata gone.
func (c *Checker) Injected(f chaos.Fault, resource string) {
	e, ok := f.(chaos.Expected)
	if !ok {
		return
	}
	if e.Effects()&chaos.RestartsJobManager != 0 {
		c.JobManagerCrashed(resource)
	}
	if e.Effects()&chaos.LosesHAMetadata != 0 {
		c.HAMetadataLost(resource)
	}
}

// HAMetadataLost tells the checker that a fault deleted the resource's HA metadata. A
// JobManager that Flink itself restarts after that resubmits the job from its configured
// savepoint (Flink's behaviour, out of the operator's hands), so such a restart is not held to
// invariant 1; operator deploys still are.
func (c *Checker) HAMetadataLost(resource string) { c.haLost[resource] = true }

// Check checks every invariant for the named resources and returns the violations.
func (c *Checker) Check(resources ...string) []string {
	var out []string
	c.lifecycles.noteEvents(c.w)
	c.sessionLifecycles.noteEvents(c.w)
	out = append(out, c.checkSnapshots()...) // first: N5 needs the snapshots' trigger ids
	for _, r := range resources {
		out = append(out, c.check(r)...)
	}
	out = append(out, c.checkSessions()...)
	out = append(out, c.checkCrons()...)
	out = append(out, c.checkBlueGreens()...)
	out = append(out, c.snapshotsBounded()...)
	out = append(out, c.oneSavepointInFlight()...)
	out = append(out, c.w.events.rejected...) // API limits and catalogued reasons: every Event was accepted
	out = append(out, c.w.FalseAlarms()...)
	out = append(out, c.w.api.staleWrites...)
	out = append(out, c.boundaryKept()...)
	out = append(out, c.foreignUntouched()...)
	out = append(out, c.latencyKept()...)
	out = append(out, c.oneJobManager()...)
	out = append(out, c.tenantCodeBounded()...)
	out = append(out, c.podsAsKubeletShows()...)
	c.traceViolations(resources, out)
	return out
}

// traceViolations writes each violation into the trace once, at the step that found it, so the
// trace and its timeline show where a failing run went wrong among the faults and actions.
func (c *Checker) traceViolations(resources, violations []string) {
	resource := ""
	if len(resources) == 1 {
		resource = resources[0]
	}
	for _, v := range violations {
		if !c.traced[v] {
			c.traced[v] = true
			c.w.Trace.add(c.w.Now(), "violation", resource, v)
		}
	}
}

// StepUntil steps the world until end or until done holds (nil: never), checking the
// invariants of the named resources after every step; the first violation ends it.
func (c *Checker) StepUntil(end time.Time, done func() bool, resources ...string) error {
	for c.w.Now().Before(end) && (done == nil || !done()) {
		if _, err := c.w.Step(); err != nil {
			return fmt.Errorf("step: %w", err)
		}
		if v := c.Check(resources...); len(v) > 0 {
			return fmt.Errorf("invariant violated at %s:\n  %s", c.w.Now().Sub(Start), strings.Join(v, "\n  "))
		}
	}
	return nil
}

func (c *Checker) check(name string) []string {
	d, err := c.w.Get(name)
	if apierrors.IsNotFound(err) {
		c.forget(name)
		c.lifecycles.note(name, "")
		for _, lane := range []string{LaneLifecycle, LaneJobManager, LaneJob} {
			c.w.Trace.State(c.w.Now(), name, lane, "")
		}
		return c.nothingLeft(name)
	}
	if err != nil {
		return []string{fmt.Sprintf("%s: read: %v", name, err)}
	}
	c.lifecycles.note(name, d.Status.LifecycleState)
	c.remember(d)
	c.noteSavepoints(d)
	var out []string
	out = append(out, c.statusConsistent(d)...)
	out = append(out, c.rollbackAllowed(d)...)
	out = append(out, c.scalingOnlyWhenSteady(d)...)
	cl := c.w.Sim.Cluster(c.w.Namespace, act.JobManagerName(name))
	c.sampleTimeline(d, cl)
	if cl == nil {
		return out
	}
	out = append(out, oneLiveJob(name, cl)...)
	out = append(out, c.oneSavepointPerNonce(d, cl)...)
	return append(out, c.noRegression(d, cl)...)
}

// forget drops what the checker remembered of a deleted resource: a new one of the same name
// is a new object.
func (c *Checker) forget(name string) {
	delete(c.lastGen, name)
	delete(c.lastJob, name)
	delete(c.deployedGen, name)
	delete(c.crashes, name)
	delete(c.haLost, name)
	delete(c.specs, name)
	delete(c.lastState, name)
	delete(c.lineage, name)
	delete(c.knownSavepoints, name)
}

// specHistory is one object's specs by generation.
type specHistory struct {
	uid   types.UID
	byGen map[int64]*flinkv1beta1.FlinkDeploymentSpec
}

// specOf is the spec the resource name had at generation gen (nil: never seen).
func (c *Checker) specOf(name string, gen int64) *flinkv1beta1.FlinkDeploymentSpec {
	if h := c.specs[name]; h != nil {
		return h.byGen[gen]
	}
	return nil
}

// remember records the spec of d's generation as d carries it: what the user (or the parent
// that made d) asked for, which the checker holds the operator to, never what the operator
// wrote about it.
func (c *Checker) remember(d *flinkv1beta1.FlinkDeployment) {
	h := c.specs[d.Name]
	if h == nil || h.uid != d.UID { // new, or deleted and made again between checks
		h = &specHistory{uid: d.UID, byGen: map[int64]*flinkv1beta1.FlinkDeploymentSpec{}}
		c.specs[d.Name] = h
	}
	if h.byGen[d.Generation] == nil {
		h.byGen[d.Generation] = d.Spec.DeepCopy()
	}
}

// ResourceVersion returns a resource's resourceVersion ("" when gone), to detect writes.
func (c *Checker) ResourceVersion(name string) string {
	d, err := c.w.Get(name)
	if err != nil {
		return ""
	}
	return d.ResourceVersion
}
