package chaos

import (
	"time"

	"github.com/flinkop/flinkop/fakeflink"
)

// Tunable is a fault with parameters a script may set (fault CLASS for=… count=… k=…): each
// fault says itself which it takes, so a new fault class needs no change of the script
// language.
type Tunable interface {
	Fault
	// Tune returns the fault with the parameters p sets; a zero parameter keeps its default.
	Tune(p Params) Fault
}

// Params are a script's fault parameters: for= and trail= (durations), count= and k=.
type Params struct {
	For, Trail time.Duration
	Count, K   int
}

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
	// kinds' not: frozen at the first read, or, with trail set, each of its writes reaching
	// them up to trail later, in order.
	LagInformer(kind string, d, trail time.Duration) error
	// DropWatchEvents makes the operator miss the next n watch events.
	DropWatchEvents(n int)
	// APIUnavailable fails every API call of the operator for d, then restarts the API
	// server (the operator's watches re-list).
	APIUnavailable(d time.Duration)
	// RefuseTaskManagerPods evicts a TaskManager pod of the resource's native cluster and
	// makes the API refuse the ones its resource manager creates for d.
	RefuseTaskManagerPods(name string, d time.Duration) error
}

// Fault is one fault.
type Fault interface {
	// Name names the fault class (for traces and summaries).
	Name() string
	// Apply injects the fault into the resource's world.
	Apply(t Target, resource string) error
}

// Effect is a consequence of a fault that the invariants must expect: without it, a
// legitimate recovery from the fault would look like an operator bug.
type Effect int

const (
	// RestartsJobManager means that the resource's JobManager restarts without an operator deploy (Flink
	// restarts it, or the operator recreates the Deployment the fault deleted), and the job
	// recovers from HA.
	RestartsJobManager Effect = 1 << iota
	// LosesHAMetadata means that the resource's HA metadata is gone.
	LosesHAMetadata
)

// Expected is a fault that says which effects the invariants must expect of it; a fault that
// is not one has none. The checker reads it (harness.Checker.Injected), and a test holds every
// class's claim to what the fault does in a world (harness TestFaultEffectsDeclared).
type Expected interface {
	Fault
	Effects() Effect
}

// Classes are one value of every fault class, for random choice.
var Classes = []Fault{
	JobManagerCrash{},
	TaskManagerLoss{},
	TaskManagerPodsRefused{For: 6 * time.Minute},
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
	InformerLag{Kind: "Deployment", For: time.Minute, Trail: 10 * time.Second},
	MissedWatchEvents{Count: 1},
	APIUnavailable{For: time.Minute},
}
