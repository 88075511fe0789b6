package fakeflink

import (
	"fmt"
	"slices"
	"time"
)

// submit adds a job that restores from restorePath (empty: from scratch). A restore path that
// is not in the store fails the job, as in Flink.
func (c *Cluster) submit(prog Program, id, restorePath string) *Job {
	now := c.Now()
	if prog.Parallelism < 1 {
		prog.Parallelism = 1
	}
	if prog.Name == "" {
		prog.Name = "fake-job"
	}
	j := &Job{
		ID: id, Program: prog, Status: StatusInitializing, StartTime: now, LastModification: now,
		Timestamps: map[JobStatus]time.Time{StatusInitializing: now}, parallelism: prog.Parallelism,
		nextAction: now.Add(c.opts.Timing.JobStart),
	}
	c.jobs[id] = j
	c.order = append(c.order, id)
	if err := c.buildVertices(j); err != nil {
		c.recordException(j, "org.apache.flink.runtime.client.JobInitializationException", "Could not start the JobMaster. "+err.Error(), now)
		_ = j.setStatus(StatusFailed, now)
		return j
	}
	if restorePath != "" {
		snap, ok := c.opts.Store.Get(restorePath)
		if !ok {
			c.recordException(j, "java.io.FileNotFoundException",
				fmt.Sprintf("Cannot find checkpoint or savepoint file/directory '%s' on file system 'file'.", restorePath), now)
			_ = j.setStatus(StatusFailed, now)
			return j
		}
		j.offset, j.restored, j.checkpointSeq = snap.Offset, &snap, snap.ID
		j.inputBegan = snap.InputBegan
		if err := j.restoreKeyGroups(snap); err != nil {
			c.recordException(j, "org.apache.flink.runtime.client.JobInitializationException", "Could not start the JobMaster. java.lang.IllegalStateException: "+err.Error(), now)
			_ = j.setStatus(StatusFailed, now)
			return j
		}
	}
	c.starts = append(c.starts, JobStart{JobID: id, Time: now, RestorePath: restorePath, Offset: j.offset})
	if c.settings.HAEnabled {
		rec := HAJob{JobID: id, Program: prog}
		rec.Program.RestorePath = restorePath
		_ = c.opts.HA.Save(c.settings.HAClusterID, rec)
	}
	return j
}

// Tick processes everything due at the clock's current time: job starts and restarts,
// periodic checkpoints, bounded jobs finishing, cancellations and triggered operations. It does
// nothing while the JobManager is down.
func (c *Cluster) Tick() {
	if !c.up {
		return
	}
	now := c.Now()
	for _, j := range c.orderedJobs() {
		c.tickJob(j, now)
	}
	c.tickOperations(now)
}

func (c *Cluster) tickJob(j *Job, now time.Time) {
	// Periodic checkpoints and the end of a bounded input happen in time order.
	for j.Status == StatusRunning {
		fin, bounded := j.finishTime()
		cp := j.nextCheckpoint
		hasCP := c.settings.CheckpointInterval > 0 && !cp.IsZero()
		switch {
		case bounded && !fin.After(now) && (!hasCP || !cp.Before(fin)):
			_ = j.setStatus(StatusFinished, fin)
			c.terminated(j)
		case hasCP && !cp.After(now):
			c.periodicCheckpoint(j, cp)
			j.nextCheckpoint = cp.Add(c.settings.CheckpointInterval)
		default:
			return
		}
	}
	if j.nextAction.IsZero() || j.nextAction.After(now) {
		if j.Status == StatusCreated {
			c.schedule(j, now)
		}
		return
	}
	at := j.nextAction
	j.nextAction = time.Time{}
	switch j.Status {
	case StatusInitializing:
		_ = j.setStatus(StatusCreated, at)
		c.schedule(j, at)
	case StatusCancelling:
		_ = j.setStatus(StatusCanceled, at)
		c.terminated(j)
	case StatusRestarting:
		c.restoreLatest(j, at)
		c.schedule(j, at)
	}
}

// schedule moves a CREATED or RESTARTING job to RUNNING when enough slots are free. The
// default scheduler waits for them all. The adaptive scheduler, with at least one slot free
// but fewer than the job asks for, waits AdaptiveStabilization for more and then runs the job
// with the slots there are (each vertex at most that many subtasks); its resource
// requirements keep asking for the rest.
func (c *Cluster) schedule(j *Job, now time.Time) {
	j.slotCap = 0
	free, want := c.totalSlots()-c.UsedSlots(), j.desiredSlots()
	switch {
	case free >= want:
		j.sufficientSince = time.Time{}
	case c.settings.Adaptive && free > 0:
		if j.sufficientSince.IsZero() {
			j.sufficientSince = now
		}
		// The resource timeout ends the wait for more: the job runs with what there is.
		timedOut := !j.waitingSince.IsZero() && c.settings.SlotWait >= 0 && !now.Before(j.waitingSince.Add(c.settings.SlotWait))
		if now.Sub(j.sufficientSince) < AdaptiveStabilization && !timedOut {
			c.waitForSlots(j, now)
			return
		}
		j.slotCap, j.sufficientSince = free, time.Time{}
	default:
		j.sufficientSince = time.Time{}
		c.waitForSlots(j, now)
		return
	}
	_ = j.setStatus(StatusRunning, now)
	if c.settings.CheckpointInterval > 0 {
		j.nextCheckpoint = now.Add(c.settings.CheckpointInterval)
	}
	c.tickJob(j, c.Now()) // checkpoints and the end of a bounded input since then
}

// waitForSlots leaves a job waiting for slots: CREATED, as Flink reports a job the scheduler
// has not found the slots for yet. Once it has waited SlotWait it fails with
// NoResourceAvailableException, at that instant: the default scheduler's slot request times
// out (the job restarts per its strategy), the adaptive scheduler gives up on the minimum
// resources (the job FAILS for good).
func (c *Cluster) waitForSlots(j *Job, now time.Time) {
	if j.Status == StatusRestarting {
		_ = j.setStatus(StatusCreated, now)
	}
	if j.waitingSince.IsZero() {
		j.waitingSince = now
	}
	wait := c.settings.SlotWait
	at := j.waitingSince.Add(wait)
	if wait < 0 || now.Before(at) {
		return
	}
	_ = j.setStatus(StatusFailing, at)
	if c.settings.Adaptive {
		c.recordException(j, NoResourceClass, "Could not acquire the minimum required resources.", at)
		_ = j.setStatus(StatusFailed, at)
		c.terminated(j)
		return
	}
	c.failJob(j, NoResourceClass, "Slot request bulk is not fulfillable! Could not allocate the required slot within slot request timeout", at)
}

// NoResourceClass is the exception a job fails with when its slots do not come.
const NoResourceClass = "org.apache.flink.runtime.jobmanager.scheduler.NoResourceAvailableException"

// restoreLatest resets a restarting job to its latest completed checkpoint, or to the snapshot
// its run started from.
func (c *Cluster) restoreLatest(j *Job, at time.Time) {
	defer func() {
		f := Failover{At: at, Offset: j.offset}
		if j.restored != nil {
			f.RestoredFrom = j.restored.Time
		}
		j.failovers = append(j.failovers, f)
	}()
	if s, ok := j.latestCheckpoint(); ok {
		j.offset, j.restored = s.Offset, &s
		return
	}
	if j.restored != nil {
		j.offset = j.restored.Offset
		return
	}
	j.offset = 0
}

// failJob fails a job with an exception: it restarts while the restart strategy allows,
// otherwise it FAILS for good.
func (c *Cluster) failJob(j *Job, class, msg string, now time.Time) {
	if j.Status.IsTerminal() {
		return
	}
	c.recordException(j, class, msg, now)
	attempts, delay := c.settings.RestartAttempts, c.settings.RestartDelay
	if r := j.Program.Restart; r != nil {
		attempts, delay = r.Attempts, r.Delay
	}
	if j.restarts < attempts && CanTransition(j.Status, StatusRestarting) {
		j.restarts++
		_ = j.setStatus(StatusRestarting, now)
		j.nextAction = now.Add(delay)
		return
	}
	if j.Status != StatusFailing {
		_ = j.setStatus(StatusFailing, now)
	}
	_ = j.setStatus(StatusFailed, now)
	c.terminated(j)
}

func (c *Cluster) recordException(j *Job, class, msg string, now time.Time) {
	trace := fmt.Sprintf("%s: %s\n\tat org.apache.flink.fake.FakeJob.run(FakeJob.java:42)\n", class, msg)
	j.FailureCause = class + ": " + msg
	j.Exceptions = append(j.Exceptions, Exception{Name: class, Message: msg, StackTrace: trace, Time: now})
	if n := len(j.Exceptions) - c.settings.ExceptionHistory; n > 0 {
		j.Exceptions = slices.Delete(j.Exceptions, 0, n) // Flink keeps the newest only
	}
}

// terminated drops the HA metadata of a globally terminal job and records its result, as
// Flink does (so a restarted JobManager does not run it again).
func (c *Cluster) terminated(j *Job) {
	if c.settings.HAEnabled && j.Status.IsGloballyTerminal() {
		c.opts.Store.RecordResult(c.settings.HAClusterID, j.ID, j.Status)
		_ = c.opts.HA.Remove(c.settings.HAClusterID, j.ID)
	}
}

// finished re-creates a job whose result is recorded, in its final state, without running it.
func (c *Cluster) finished(prog Program, id string, final JobStatus) {
	now := c.Now()
	j := &Job{
		ID: id, Program: prog, Status: final, StartTime: now, EndTime: now, LastModification: now,
		Timestamps: map[JobStatus]time.Time{final: now}, parallelism: max(prog.Parallelism, 1),
	}
	c.jobs[id] = j
	c.order = append(c.order, id)
}

// CancelJob cancels a job (PATCH /jobs/:id?mode=cancel).
func (c *Cluster) CancelJob(id string) error {
	j, ok := c.jobs[id]
	if !ok {
		return errorf(KindNotFound, "Job could not be found.")
	}
	if j.Status.IsTerminal() {
		return errorf(KindConflict, "Job cancellation failed because the job has already reached another terminal state (%s).", j.Status)
	}
	now := c.Now()
	switch j.Status {
	case StatusCancelling:
		return nil
	case StatusInitializing:
		_ = j.setStatus(StatusCanceled, now)
		c.terminated(j)
		return nil
	}
	_ = j.setStatus(StatusCancelling, now)
	j.nextAction = now.Add(c.opts.Timing.Cancel)
	return nil
}

// FailJob makes a job throw an exception (a fault): it restarts per its restart strategy.
func (c *Cluster) FailJob(id, message string) error {
	j, err := c.Job(id)
	if err != nil {
		return err
	}
	c.failJob(j, "java.lang.RuntimeException", message, c.Now())
	return nil
}
