package chaos

import (
	"fmt"
	"math/rand"
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
	// DeleteJobManagerDeployment deletes the resource's JobManager Deployment (its pods die).
	DeleteJobManagerDeployment(name string) error
	// RestartOperator replaces the operator by a fresh one (caches and memory dropped).
	RestartOperator()
	// Now is the world's virtual time.
	Now() time.Time
	// Schedule runs f after d of virtual time.
	Schedule(d time.Duration, f func())
	// CrashOperatorAfterWrite makes the operator crash right after its k-th next API write.
	CrashOperatorAfterWrite(k int)
	// BreakJobManagerPod makes the resource's JobManager pod fail with reason for d.
	BreakJobManagerPod(name, reason string, d time.Duration)
	// DelayJobManagerStart makes the resource's next JobManager pod start d later.
	DelayJobManagerStart(name string, d time.Duration)
	// FailAPIWrites makes the operator's next n API writes fail with code, without effect.
	FailAPIWrites(code, n int)
	// StaleReads serves the operator's reads from a lagging snapshot for d.
	StaleReads(d time.Duration)
	// LagInformer makes the operator's reads of kind lag behind the API for d, the other
	// kinds' not.
	LagInformer(kind string, d time.Duration) error
	// DropWatchEvents makes the operator miss the next n watch events.
	DropWatchEvents(n int)
	// APIUnavailable fails every API call of the operator for d, then restarts the API
	// server (the operator's watches re-list).
	APIUnavailable(d time.Duration)
}

// Fault is one fault.
type Fault interface {
	// Name names the fault class (for traces and summaries).
	Name() string
	// Apply injects the fault into the resource's world.
	Apply(t Target, resource string) error
}

// Classes are one value of every fault class, for random choice.
var Classes = []Fault{
	JobManagerCrash{},
	TaskManagerLoss{},
	JobManagerPodFailure{Reason: "CrashLoopBackOff", For: time.Minute},
	JobManagerPodFailure{Reason: "ImagePullBackOff", For: time.Minute},
	SlowStart{By: 90 * time.Second},
	RESTOutage{For: 30 * time.Second},
	RESTTimeout{For: 30 * time.Second},
	NetworkPartition{For: 30 * time.Second},
	SavepointFailure{Count: 1},
	SavepointHang{For: 2 * time.Minute},
	CheckpointFailure{For: time.Minute},
	JobFailure{},
	HAMetadataLoss{},
	JobManagerDeploymentLoss{},
	OperatorRestart{},
	OperatorCrashAfterWrite{K: 1},
	OperatorCrashAfterWrite{K: 2},
	APIErrors{Code: 409, Count: 2},
	APIErrors{Code: 500, Count: 2},
	StaleReads{For: 20 * time.Second},
	InformerLag{Kind: "Deployment", For: 20 * time.Second},
	InformerLag{Kind: "Pod", For: 20 * time.Second},
	InformerLag{Kind: "ConfigMap", For: 20 * time.Second},
	MissedWatchEvents{Count: 1},
	APIUnavailable{For: time.Minute},
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

// Schedule arms the plan on t: each step's fault is applied to resource After the previous
// one, on t's virtual clock; applied (optional) hears of each fault as it is injected, with
// the error of its Apply.
func (p Plan) Schedule(t Target, resource string, applied func(Fault, error)) {
	var at time.Duration
	for _, s := range p {
		at += s.After
		f := s.Fault
		t.Schedule(at, func() {
			err := f.Apply(t, resource)
			if applied != nil {
				applied(f, err)
			}
		})
	}
}
