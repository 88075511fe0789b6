package fakeflink

import (
	"fmt"
	"slices"
	"time"

	"github.com/flinkop/flinkop/fakeflink/workload"
)

// JobStatus is a Flink job state.
type JobStatus string

// Flink's job states. CANCELLING has two Ls, CANCELED one, as in Flink.
const (
	StatusInitializing JobStatus = "INITIALIZING"
	StatusCreated      JobStatus = "CREATED"
	StatusRunning      JobStatus = "RUNNING"
	StatusFailing      JobStatus = "FAILING"
	StatusFailed       JobStatus = "FAILED"
	StatusCancelling   JobStatus = "CANCELLING"
	StatusCanceled     JobStatus = "CANCELED"
	StatusFinished     JobStatus = "FINISHED"
	StatusRestarting   JobStatus = "RESTARTING"
	StatusSuspended    JobStatus = "SUSPENDED"
	StatusReconciling  JobStatus = "RECONCILING"
)

// AllStatuses lists every job state, in Flink's declaration order.
var AllStatuses = []JobStatus{
	StatusInitializing, StatusCreated, StatusRunning, StatusFailing, StatusFailed, StatusCancelling,
	StatusCanceled, StatusFinished, StatusRestarting, StatusSuspended, StatusReconciling,
}

// transitions are the legal job state changes, after Flink's JobStatus state machine.
var transitions = map[JobStatus][]JobStatus{
	StatusInitializing: {StatusCreated, StatusFailed, StatusCanceled},
	StatusCreated:      {StatusRunning, StatusCancelling, StatusFailing, StatusFailed, StatusSuspended, StatusCanceled},
	StatusRunning:      {StatusFailing, StatusCancelling, StatusRestarting, StatusFinished, StatusSuspended, StatusFailed},
	StatusFailing:      {StatusFailed, StatusRestarting, StatusCancelling},
	StatusRestarting:   {StatusCreated, StatusRunning, StatusCancelling, StatusCanceled, StatusSuspended, StatusFailed},
	StatusCancelling:   {StatusCanceled},
	StatusReconciling:  {StatusRunning, StatusFailing, StatusCancelling, StatusFailed, StatusFinished, StatusSuspended},
}

// CanTransition reports whether a job may go from one state to another.
func CanTransition(from, to JobStatus) bool { return slices.Contains(transitions[from], to) }

// IsGloballyTerminal reports whether a state ends the job for good (FAILED, CANCELED,
// FINISHED); Flink then drops the job's HA metadata.
func (s JobStatus) IsGloballyTerminal() bool {
	return s == StatusFailed || s == StatusCanceled || s == StatusFinished
}

// IsTerminal reports whether the job no longer runs (globally terminal or SUSPENDED).
func (s JobStatus) IsTerminal() bool { return s.IsGloballyTerminal() || s == StatusSuspended }

// Program is what a job runs: the fake's stand-in for a JobGraph.
type Program struct {
	Name                  string
	JarURI                string
	EntryClass            string
	Args                  []string
	Parallelism           int
	RestorePath           string
	AllowNonRestoredState bool
	// RecordsPerSecond is the rate at which the job's offset grows while it runs.
	RecordsPerSecond int64
	// Records is the input length of a bounded job, which FINISHES on reaching it; 0 means
	// unbounded.
	Records int64
	// WorkloadConfig are the job's fakeflink.workload.* keys (see package workload): a job
	// with an input runs the workload model instead of the constant rate.
	WorkloadConfig map[string]string `json:",omitempty"`
	// ParallelismOverrides are vertices' parallelism by vertex id, as written
	// (pipeline.jobvertex-parallelism-overrides): read for the job's vertices only.
	ParallelismOverrides map[string]string `json:",omitempty"`
	// MaxParallelism is pipeline.max-parallelism (0: Flink's default per vertex).
	MaxParallelism int `json:",omitempty"`
	// Restart is the job's own restart strategy, from the configuration a jar run submitted it
	// with (nil: the cluster's).
	Restart *RestartPolicy `json:",omitempty"`
}

// RestartPolicy is a fixed-delay restart strategy: how often a failed job restarts, and after
// how long.
type RestartPolicy struct {
	Attempts int
	Delay    time.Duration
}

// Job is one job on the fake JobManager.
type Job struct {
	ID      string
	Program Program
	Status  JobStatus
	// Timestamps holds when the job last entered each state: Flink's execution graph
	// overwrites a state's timestamp on each transition (DefaultExecutionGraph.transitionState),
	// so RUNNING is when the job last started running.
	Timestamps map[JobStatus]time.Time
	StartTime  time.Time
	EndTime    time.Time
	// LastModification is when the job last changed state.
	LastModification time.Time

	// offset is the job state at runningSince; while RUNNING it grows at the program's rate.
	offset       int64
	runningSince time.Time
	parallelism  int
	// vertexPar are the vertices' parallelism where it differs from the job's (0: the job's).
	vertexPar []int
	// slotCap is the slots the adaptive scheduler ran the job with when it found fewer than
	// the job asks for (0: no cap); each vertex runs at most that many subtasks.
	slotCap int
	// sufficientSince is when the adaptive scheduler first found some slots for the waiting
	// job, but fewer than it asks for (zero: not waiting so).
	sufficientSince time.Time
	// waitingSince is when the job began to wait for slots (zero: not waiting).
	waitingSince time.Time
	// work is the job's workload (nil: the constant rate); model its run while RUNNING, of an
	// input that began at inputBegan.
	work       *workload.Spec
	model      *workload.Model
	inputBegan time.Time
	// adoptedMax are the vertices' max parallelism taken from the state restored (0: none).
	adoptedMax []int

	// nextAction is when the job's pending state change (start, restart, cancel) happens.
	nextAction     time.Time
	nextCheckpoint time.Time
	restarts       int
	checkpointSeq  int64
	checkpoints    []Snapshot // completed checkpoints (and savepoints) of this job, oldest first
	failures       int64
	restored       *Snapshot
	failovers      []Failover
	// FailureCause is the exception that failed (or restarted) the job last.
	FailureCause string
	// Exceptions is the job's exception history, oldest first.
	Exceptions []Exception
}

// Failover is one restart of a job by Flink's restart strategy: it went back to the state it
// restored (its latest checkpoint, else what it started from), so snapshots it completed
// after that state and before the failover are no longer on its lineage.
type Failover struct {
	// At is when the job restarted.
	At time.Time
	// RestoredFrom is when the snapshot it went back to completed (zero: empty state).
	RestoredFrom time.Time
	// Offset is the state it went back to.
	Offset int64
}

// Exception is one entry of a job's exception history.
type Exception struct {
	Name       string
	Message    string
	StackTrace string
	Time       time.Time
}

// Offset is the job's state at time t. A job with a workload advances its model to t (a t
// before the model's time reads its position then).
func (j *Job) Offset(t time.Time) int64 {
	if j.Status != StatusRunning || t.Before(j.runningSince) {
		return j.offset
	}
	if j.model != nil {
		if err := j.model.Advance(t, j.parallelisms()); err != nil {
			return j.offset
		}
		return int64(j.model.Position())
	}
	off := j.offset + t.Sub(j.runningSince).Milliseconds()*j.Program.RecordsPerSecond/1000
	if j.Program.Records > 0 && off > j.Program.Records {
		off = j.Program.Records
	}
	return off
}

// Parallelism is the job's current parallelism: its largest vertex's, the slots it holds.
func (j *Job) Parallelism() int { return j.slots() }

// Restored is the snapshot the job's current run restored from, or nil.
func (j *Job) Restored() *Snapshot { return j.restored }

// Checkpoints are the job's completed checkpoints and savepoints, oldest first.
func (j *Job) Checkpoints() []Snapshot { return slices.Clone(j.checkpoints) }

// LastCheckpointTime is when the job's newest completed checkpoint (not savepoint) was taken,
// zero when it has none; unlike Checkpoints it copies nothing (the harness asks on every
// reconcile).
func (j *Job) LastCheckpointTime() time.Time {
	s, _ := j.latestCheckpoint()
	return s.Time
}

// latestCheckpoint is the job's newest completed checkpoint, savepoints skipped (the list is
// oldest first).
func (j *Job) latestCheckpoint() (Snapshot, bool) {
	for i := len(j.checkpoints) - 1; i >= 0; i-- {
		if s := j.checkpoints[i]; s.Kind == KindCheckpoint {
			return s, true
		}
	}
	return Snapshot{}, false
}

// Failovers are the job's restarts by its restart strategy, oldest first.
func (j *Job) Failovers() []Failover { return slices.Clone(j.failovers) }

// Restarts is how many times the job restarted after a failure.
func (j *Job) Restarts() int { return j.restarts }

// setStatus moves the job to a new state, refusing illegal changes.
func (j *Job) setStatus(to JobStatus, now time.Time) error {
	if !CanTransition(j.Status, to) {
		return fmt.Errorf("job %s: illegal transition %s → %s", j.ID, j.Status, to)
	}
	if to == StatusRunning {
		j.runningSince = now
	}
	if j.Status == StatusRunning {
		j.offset = j.Offset(now)
		j.model = nil
	}
	j.Status = to
	if to == StatusRunning {
		j.startModel(now)
	}
	if to != StatusCreated {
		j.waitingSince = time.Time{}
	}
	j.LastModification = now
	j.Timestamps[to] = now
	if to.IsTerminal() {
		j.EndTime = now
	}
	return nil
}

// finishTime is when a running bounded job reaches its input's end.
func (j *Job) finishTime() (time.Time, bool) {
	if j.Status != StatusRunning || j.Program.Records <= 0 || j.Program.RecordsPerSecond <= 0 {
		return time.Time{}, false
	}
	left := j.Program.Records - j.offset
	ms := (left*1000 + j.Program.RecordsPerSecond - 1) / j.Program.RecordsPerSecond
	return j.runningSince.Add(time.Duration(ms) * time.Millisecond), true
}

// JobReport is what fakeflink's GET /fakeflink/jobs/{id} tells about a job beyond Flink's REST
// API, so that end-to-end tests can check that a run resumed exactly where its state was.
type JobReport struct {
	ID     string    `json:"id"`
	Status JobStatus `json:"status"`
	// Offset is the job's state: its input offset now.
	Offset int64 `json:"offset"`
	// StartOffset is the offset the job's current run started from.
	StartOffset int64 `json:"startOffset"`
	// Restored is the snapshot the current run restored, if any.
	Restored *Snapshot `json:"restored,omitempty"`
}
