package fakeflink

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"
)

// OperationKind names an asynchronous operation.
type OperationKind string

// The asynchronous operations.
const (
	OpSavepoint  OperationKind = "savepoint"
	OpCheckpoint OperationKind = "checkpoint"
	OpDisposal   OperationKind = "disposal"
)

// SavepointRequest is a savepoint trigger: POST /jobs/:id/savepoints, or /stop when Stop is set.
type SavepointRequest struct {
	TargetDirectory string
	CancelJob       bool
	Stop            bool
	Drain           bool
	Format          string
	TriggerID       string
}

// OperationResult is the state of an asynchronous operation.
type OperationResult struct {
	Done bool
	// Location is a completed savepoint's path.
	Location string
	// CheckpointID is a completed checkpoint's id.
	CheckpointID int64
	// Failure is the stack trace of a failed operation ("" on success).
	Failure string
	// FailureClass is the exception class of a failed operation.
	FailureClass string
}

type operation struct {
	kind      OperationKind
	jobID     string
	triggerID string
	triggered time.Time
	due       time.Time
	expires   time.Time
	result    OperationResult
	savepoint SavepointRequest
	path      string // disposal target
	fullCheck bool   // checkpoint type FULL
}

func opKey(kind OperationKind, jobID, triggerID string) string {
	return string(kind) + "/" + jobID + "/" + triggerID
}

// TriggerSavepoint starts a savepoint (or stop-with-savepoint) and returns its trigger id. The
// same trigger id given twice returns the same operation. Job problems show in the result.
func (c *Cluster) TriggerSavepoint(jobID string, req SavepointRequest) (string, error) {
	if req.TargetDirectory == "" && c.settings.SavepointsDir == "" {
		prop := "target-directory"
		if req.Stop {
			prop = "targetDirectory"
		}
		return "", errorf(KindBadRequest, "Config key [%s] is not set. Property [%s] must be provided.", keySavepointsDirV2, prop)
	}
	return c.trigger(&operation{kind: OpSavepoint, jobID: jobID, savepoint: req}, req.TriggerID), nil
}

// TriggerCheckpoint starts a checkpoint (POST /jobs/:id/checkpoints).
func (c *Cluster) TriggerCheckpoint(jobID, checkpointType, triggerID string) string {
	return c.trigger(&operation{kind: OpCheckpoint, jobID: jobID, fullCheck: checkpointType == "FULL"}, triggerID)
}

// DisposeSavepoint starts deleting a savepoint from the store (POST /savepoint-disposal).
func (c *Cluster) DisposeSavepoint(path string) string {
	return c.trigger(&operation{kind: OpDisposal, path: path}, "")
}

func (c *Cluster) trigger(op *operation, triggerID string) string {
	if triggerID != "" {
		if _, ok := c.ops[opKey(op.kind, op.jobID, triggerID)]; ok {
			return triggerID
		}
	} else {
		triggerID = c.newID()
	}
	op.triggerID = triggerID
	op.triggered = c.Now()
	op.due = op.triggered.Add(c.opts.Timing.Operation)
	c.ops[opKey(op.kind, op.jobID, triggerID)] = op
	return triggerID
}

// InFlight is a savepoint or checkpoint a job is taking.
type InFlight struct {
	Savepoint bool
	// TriggerID is the id it was triggered under (the harness's view: Flink lists none).
	TriggerID string
	// Format is a savepoint's format (CANONICAL or NATIVE).
	Format    string
	Triggered time.Time
}

// InFlight lists the savepoints and checkpoints the operator triggered on job that have not
// completed, oldest first: Flink lists them in the job's checkpoint history as in progress.
func (c *Cluster) InFlight(jobID string) []InFlight {
	var out []InFlight
	for _, k := range slices.Sorted(maps.Keys(c.ops)) {
		op := c.ops[k]
		if op.jobID == jobID && !op.result.Done && (op.kind == OpSavepoint || op.kind == OpCheckpoint) {
			format := cmp.Or(op.savepoint.Format, "CANONICAL")
			out = append(out, InFlight{Savepoint: op.kind == OpSavepoint, TriggerID: op.triggerID, Format: format, Triggered: op.triggered})
		}
	}
	slices.SortStableFunc(out, func(a, b InFlight) int { return a.Triggered.Compare(b.Triggered) })
	return out
}

// OperationStatus returns an operation's result; an unknown or expired trigger is NotFound
// with Flink's message.
func (c *Cluster) OperationStatus(kind OperationKind, jobID, triggerID string) (OperationResult, error) {
	op, ok := c.ops[opKey(kind, jobID, triggerID)]
	if !ok {
		if kind == OpDisposal {
			return OperationResult{}, errorf(KindNotFound, "There is no savepoint disposal operation with triggerId=%s.", triggerID)
		}
		return OperationResult{}, errorf(KindNotFound, "There is no %s operation with triggerId=%s for job %s.", kind, triggerID, jobID)
	}
	return op.result, nil
}

func (c *Cluster) tickOperations(now time.Time) {
	for _, k := range slices.Sorted(maps.Keys(c.ops)) {
		op := c.ops[k]
		if op.result.Done {
			if !op.expires.After(now) {
				delete(c.ops, k)
			}
			continue
		}
		if op.due.After(now) || (op.kind == OpSavepoint && c.faults.savepointsHang) {
			continue
		}
		c.complete(op, now)
		op.result.Done = true
		op.expires = now.Add(c.settings.StoreDuration)
	}
}

func (c *Cluster) complete(op *operation, now time.Time) {
	fail := func(class, msg string) {
		op.result.FailureClass = class
		op.result.Failure = fmt.Sprintf("%s: %s\n\tat org.apache.flink.runtime.checkpoint.CheckpointCoordinator.triggerCheckpoint(CheckpointCoordinator.java:610)\n", class, msg)
	}
	if op.kind == OpDisposal {
		if !c.opts.Store.Delete(op.path) {
			fail("java.io.FileNotFoundException", fmt.Sprintf("Cannot find savepoint '%s'.", op.path))
		}
		return
	}
	j, ok := c.jobs[op.jobID]
	switch {
	case !ok:
		fail("org.apache.flink.runtime.messages.FlinkJobNotFoundException", fmt.Sprintf("Could not find Flink job (%s)", op.jobID))
	case j.Status != StatusRunning:
		fail("org.apache.flink.runtime.checkpoint.CheckpointException",
			fmt.Sprintf("Checkpoint triggering task of job %s is not being executed at the moment. Aborting checkpoint. Failure reason: Not all required tasks are currently running (job is %s).", j.ID, j.Status))
	case op.kind == OpSavepoint && c.faults.savepointFailures > 0:
		c.faults.savepointFailures--
		fail("java.util.concurrent.CompletionException", "java.io.IOException: Savepoint failed (injected fault): Failed to write savepoint metadata.")
	case op.kind == OpCheckpoint && c.faults.checkpointsFail:
		j.failures++
		fail("org.apache.flink.runtime.checkpoint.CheckpointException", "Checkpoint was declined (injected fault).")
	case op.kind == OpCheckpoint:
		snap := c.takeCheckpoint(j, now)
		op.result.CheckpointID = snap.ID
	default:
		op.result.Location = c.takeSavepoint(j, op.savepoint, op.triggerID, now).Path
	}
}

func (c *Cluster) takeSavepoint(j *Job, req SavepointRequest, triggerID string, now time.Time) Snapshot {
	dir := req.TargetDirectory
	if dir == "" {
		dir = c.settings.SavepointsDir
	}
	format := req.Format
	if format == "" {
		format = "CANONICAL"
	}
	j.checkpointSeq++
	snap := Snapshot{
		Path: fmt.Sprintf("%s/savepoint-%s-%012x", trimSlash(dir), j.ID[:6], c.opts.Rand.Uint64()&0xffffffffffff),
		Kind: KindSavepoint, JobID: j.ID, ID: j.checkpointSeq, Offset: j.Offset(now), Time: now, Format: format, InputBegan: j.inputBegan, MaxParallelism: j.keyGroups(),
		TriggerID: triggerID, StoppedJob: req.Stop || req.CancelJob,
	}
	c.opts.Store.Put(snap)
	j.checkpoints = append(j.checkpoints, snap)
	switch {
	case req.Stop:
		_ = j.setStatus(StatusFinished, now)
		c.terminated(j)
	case req.CancelJob:
		_ = j.setStatus(StatusCancelling, now)
		_ = j.setStatus(StatusCanceled, now)
		c.terminated(j)
	}
	return snap
}

// periodicCheckpoint takes the checkpoint due at time at, unless checkpoints fail.
func (c *Cluster) periodicCheckpoint(j *Job, at time.Time) {
	if c.faults.checkpointsFail {
		j.failures++
		return
	}
	c.takeCheckpoint(j, at)
}

// takeCheckpoint completes a checkpoint: it goes to the store (when a checkpoint directory is
// configured), older ones beyond the retained count are deleted, and HA points at it.
func (c *Cluster) takeCheckpoint(j *Job, at time.Time) Snapshot {
	j.checkpointSeq++
	snap := Snapshot{Kind: KindCheckpoint, JobID: j.ID, ID: j.checkpointSeq, Offset: j.Offset(at), Time: at, Format: "FULL", InputBegan: j.inputBegan, MaxParallelism: j.keyGroups()}
	if c.settings.CheckpointsDir == "" {
		snap.Path = "<checkpoint-not-externally-addressable>"
		j.checkpoints = append(j.checkpoints, snap)
		return snap
	}
	snap.Path = fmt.Sprintf("%s/%s/chk-%d", trimSlash(c.settings.CheckpointsDir), j.ID, snap.ID)
	c.opts.Store.Put(snap)
	j.checkpoints = append(j.checkpoints, snap)
	c.retain(j)
	if c.settings.HAEnabled {
		_ = c.opts.HA.Save(c.settings.HAClusterID, HAJob{JobID: j.ID, Program: j.Program, CheckpointID: snap.ID, CheckpointPath: snap.Path})
	}
	return snap
}

// maxHistory bounds the snapshots a job remembers (Flink's statistics keep a short history).
const maxHistory = 64

// retain deletes the externalized checkpoint that just fell out of the retained count (older
// ones were deleted when their turn came) and bounds the job's history.
func (c *Cluster) retain(j *Job) {
	kept := 0
	for i := len(j.checkpoints) - 1; i >= 0; i-- {
		s := j.checkpoints[i]
		if s.Kind != KindCheckpoint || s.Path == "" || s.Path[0] == '<' {
			continue
		}
		if kept++; kept > c.settings.NumRetained {
			c.opts.Store.Delete(s.Path)
			break
		}
	}
	if n := len(j.checkpoints); n > maxHistory {
		j.checkpoints = slices.Clone(j.checkpoints[n-maxHistory:])
	}
}

func trimSlash(s string) string {
	for len(s) > 1 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}
