package chaos

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"time"

	"github.com/flinkop/flinkop/fakeflink"
)

// Target is the world faults act on: the fakeflink cluster behind a resource, its HA
// metadata, its pods and the operator.
type Target interface {
	// Cluster runs f on the fakeflink cluster of a FlinkDeployment; false when none runs.
	Cluster(name string, f func(c *fakeflink.Cluster)) bool
	// DeleteHAMetadata deletes the resource's HA ConfigMaps.
	DeleteHAMetadata(name string) error
	// RestartOperator replaces the operator by a fresh one (caches and memory dropped).
	RestartOperator()
	// Now is the world's virtual time.
	Now() time.Time
	// Schedule runs f after d of virtual time.
	Schedule(d time.Duration, f func())
	// CrashOperatorAfterWrite makes the operator crash right after its k-th next API write.
	CrashOperatorAfterWrite(k int)
}

// Fault is one fault.
type Fault interface {
	// Name names the fault class (for traces and summaries).
	Name() string
	// Apply injects the fault into the resource's world.
	Apply(t Target, resource string) error
}

// JobManagerCrash kills the JobManager process: jobs and in-flight operations are lost; a new
// JobManager starts (the pod restarts) and recovers from HA metadata when it has some.
type JobManagerCrash struct{}

// Name implements Fault.
func (JobManagerCrash) Name() string { return "jm-crash" }

// Apply implements Fault.
func (JobManagerCrash) Apply(t Target, r string) error {
	t.Cluster(r, func(c *fakeflink.Cluster) {
		c.CrashJobManager()
		_ = c.StartJobManager()
	})
	return nil
}

// TaskManagerLoss takes one TaskManager away; running jobs fail over.
type TaskManagerLoss struct{}

// Name implements Fault.
func (TaskManagerLoss) Name() string { return "tm-loss" }

// Apply implements Fault.
func (TaskManagerLoss) Apply(t Target, r string) error {
	t.Cluster(r, func(c *fakeflink.Cluster) {
		if ids := slices.Sorted(maps.Keys(c.TaskManagers())); len(ids) > 0 {
			c.RemoveTaskManager(ids[0])
		}
	})
	return nil
}

// SavepointFailure makes the next savepoints fail.
type SavepointFailure struct{ Count int }

// Name implements Fault.
func (SavepointFailure) Name() string { return "savepoint-failure" }

// Apply implements Fault.
func (f SavepointFailure) Apply(t Target, r string) error {
	t.Cluster(r, func(c *fakeflink.Cluster) { c.FailNextSavepoints(max(f.Count, 1)) })
	return nil
}

// CheckpointFailure makes checkpoints fail for a while.
type CheckpointFailure struct{ For time.Duration }

// Name implements Fault.
func (CheckpointFailure) Name() string { return "checkpoint-failure" }

// Apply implements Fault.
func (f CheckpointFailure) Apply(t Target, r string) error {
	t.Cluster(r, func(c *fakeflink.Cluster) { c.FailCheckpoints(true) })
	t.Schedule(f.For, func() { t.Cluster(r, func(c *fakeflink.Cluster) { c.FailCheckpoints(false) }) })
	return nil
}

// JobFailure makes the job throw; it restarts per its restart strategy.
type JobFailure struct{}

// Name implements Fault.
func (JobFailure) Name() string { return "job-failure" }

// Apply implements Fault.
func (JobFailure) Apply(t Target, r string) error {
	t.Cluster(r, func(c *fakeflink.Cluster) {
		for _, j := range c.Jobs() {
			if !j.Status.IsTerminal() {
				_ = c.FailJob(j.ID, "injected failure")
			}
		}
	})
	return nil
}

// RESTOutage makes the JobManager's REST API answer 503 for a while.
type RESTOutage struct{ For time.Duration }

// Name implements Fault.
func (RESTOutage) Name() string { return "rest-outage" }

// Apply implements Fault.
func (f RESTOutage) Apply(t Target, r string) error {
	until := t.Now().Add(f.For)
	t.Cluster(r, func(c *fakeflink.Cluster) { c.SetRESTFault(fakeflink.RESTUnavailable, until) })
	return nil
}

// HAMetadataLoss deletes the resource's HA ConfigMaps.
type HAMetadataLoss struct{}

// Name implements Fault.
func (HAMetadataLoss) Name() string { return "ha-metadata-lost" }

// Apply implements Fault.
func (HAMetadataLoss) Apply(t Target, r string) error { return t.DeleteHAMetadata(r) }

// OperatorRestart replaces the operator by a fresh instance.
type OperatorRestart struct{}

// Name implements Fault.
func (OperatorRestart) Name() string { return "operator-restart" }

// Apply implements Fault.
func (OperatorRestart) Apply(t Target, _ string) error {
	t.RestartOperator()
	return nil
}

// Classes are one value of every fault class, for random choice.
var Classes = []Fault{
	JobManagerCrash{},
	TaskManagerLoss{},
	SavepointFailure{Count: 1},
	CheckpointFailure{For: time.Minute},
	JobFailure{},
	RESTOutage{For: 30 * time.Second},
	HAMetadataLoss{},
	OperatorRestart{},
}

// Step is one fault of a plan, injected After the previous one.
type Step struct {
	After time.Duration
	Fault Fault
}

func (s Step) String() string { return fmt.Sprintf("+%s %s", s.After, s.Fault.Name()) }

// Plan is a sequence of faults.
type Plan []Step

// RandomPlan draws n faults from classes with gaps of up to maxGap, from a seeded source.
func RandomPlan(r *rand.Rand, n int, maxGap time.Duration, classes []Fault) Plan {
	p := make(Plan, n)
	for i := range p {
		p[i] = Step{After: time.Duration(r.Int63n(int64(maxGap))), Fault: classes[r.Intn(len(classes))]}
	}
	return p
}
