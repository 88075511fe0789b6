package observe

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
	"github.com/flinkop/flinkop/operator/flink"
)

// observeFlink asks the JobManager about the job and the pending triggers.
func (o *Observer) observeFlink(ctx context.Context, d *flinkv1beta1.FlinkDeployment, obs *decide.Observation) {
	ctx, cancel := withBudget(ctx, o.RESTBudget)
	defer cancel()
	api := o.Flink(d)
	defer func() { obs.RESTDeferred = budgetRefused(api) }()
	jobs, err := api.ListJobs(ctx)
	if err != nil {
		obs.RESTError = err.Error()
		return
	}
	obs.RESTReachable = true
	if d.Status.ClusterInfo[flinkv1beta1.ClusterInfoFlinkVersion] == "" {
		if c, err := api.DashboardConfig(ctx); err == nil {
			obs.Version = &decide.FlinkVersionInfo{Version: c.FlinkVersion, Revision: c.FlinkRevision}
		}
	}
	if d.Spec.Job == nil {
		if d.DeletionTimestamp != nil {
			obs.UnmanagedJobs = liveJobs(jobs)
		}
		return // a session cluster's jobs belong to its FlinkSessionJobs
	}
	job := pickJob(jobs, d.Status.JobStatus.JobID)
	if job == nil {
		return
	}
	obs.Job, obs.Savepoint, obs.Checkpoint = observeJob(ctx, api, job, &d.Status.JobStatus, adaptive(d))
	if o.HealthCheck != nil && (job.State == flink.JobRunning || job.State == flink.JobRestarting) && o.HealthCheck(d) {
		obs.Job.NumRestarts = numRestarts(ctx, api, job.ID)
	}
	if a := obs.Autoscaler; a != nil && job.State == flink.JobRunning {
		c, _ := autoscalerEnabled(d)
		if a.Collected, err = collectAutoscaler(ctx, api, job.ID, c.BusyAggregator); err != nil {
			a.CollectError = err.Error()
		}
	}
}

// observeJob reads a job's failure, newest checkpoint and (on the adaptive scheduler)
// parallelism, and the state of the savepoint and checkpoint triggers pending in js.
func observeJob(ctx context.Context, api FlinkAPI, job *flink.JobOverview, js *flinkv1beta1.JobStatus, adaptive bool) (
	j *decide.JobObservation, sp, cp *decide.OperationObservation,
) {
	j = &decide.JobObservation{ID: job.ID, Name: job.Name, State: string(job.State), StartTime: job.StartTime}
	if exceptionsOf(job.State) {
		observeExceptions(ctx, api, job, j)
	}
	if st, err := api.Checkpoints(ctx, job.ID); err == nil {
		if c := st.Latest.Completed; c != nil {
			j.LatestCheckpoint = &decide.SnapshotRef{Path: c.ExternalPath, ID: c.ID, Timestamp: c.TriggerTimestamp}
		}
		if sp := st.Latest.Savepoint; sp != nil {
			j.LatestSavepoint = &decide.SnapshotRef{Path: sp.ExternalPath, ID: sp.ID, Timestamp: sp.TriggerTimestamp}
		}
		j.SavepointInProgress = savepointInProgress(st)
	}
	if job.State == flink.JobRunning && adaptive {
		// The adaptive scheduler's parallelism can drift from the spec (an in-place rescale
		// the JobManager forgot on failover); it is read to re-apply it.
		if req, err := api.ResourceRequirements(ctx, job.ID); err == nil {
			j.VertexParallelism = make(map[string]int32, len(req))
			for id, v := range req {
				j.Parallelism = max(j.Parallelism, v.Parallelism.UpperBound)
				j.VertexParallelism[id] = v.Parallelism.UpperBound
			}
		}
	}
	if info := js.SavepointInfo; info != nil && info.TriggerID != "" {
		sp = lostButTaken(savepointObservation(ctx, api, job.ID, info.TriggerID), j.LatestSavepoint, info.TriggerTimestamp)
	}
	if info := js.CheckpointInfo; info != nil && info.TriggerID != "" {
		cp = checkpointObservation(ctx, api, job.ID, info.TriggerID)
	}
	return j, sp, cp
}

// OperationAPI is what following a savepoint or checkpoint trigger needs of a JobManager.
type OperationAPI interface {
	SavepointStatus(ctx context.Context, jobID, triggerID string) (*flink.SavepointResult, error)
	CheckpointStatus(ctx context.Context, jobID, triggerID string) (*flink.CheckpointResult, error)
}

func savepointObservation(ctx context.Context, api OperationAPI, jobID, trigger string) *decide.OperationObservation {
	res, err := api.SavepointStatus(ctx, jobID, trigger)
	switch {
	case flink.IsNotFound(err):
		return &decide.OperationObservation{Lost: true}
	case err != nil:
		return nil
	}
	op := &decide.OperationObservation{Done: res.Done, Location: res.Location}
	if res.Failure != nil {
		op.Failure = res.Failure.Summary()
	}
	return op
}

// lostButTaken turns a savepoint trigger Flink no longer knows (its result outlived
// rest.async.store-duration, or the JobManager restarted) into the savepoint it took, when
// Flink's checkpoint statistics show its newest savepoint triggered no earlier than the
// trigger was recorded (triggered, epoch milliseconds): taking it again would take a second
// savepoint for one request.
func lostButTaken(sp *decide.OperationObservation, latest *decide.SnapshotRef, triggered *int64) *decide.OperationObservation {
	if sp == nil || !sp.Lost || latest == nil || latest.Path == "" || triggered == nil || latest.Timestamp < *triggered {
		return sp
	}
	return &decide.OperationObservation{Done: true, Location: latest.Path}
}

func checkpointObservation(ctx context.Context, api OperationAPI, jobID, trigger string) *decide.OperationObservation {
	res, err := api.CheckpointStatus(ctx, jobID, trigger)
	switch {
	case flink.IsNotFound(err):
		return &decide.OperationObservation{Lost: true}
	case err != nil:
		return nil
	}
	op := &decide.OperationObservation{Done: res.Done, CheckpointID: res.CheckpointID}
	if res.Failure != nil {
		op.Failure = res.Failure.Summary()
	}
	return op
}

func adaptive(d *flinkv1beta1.FlinkDeployment) bool {
	conf, _ := d.Spec.Conf()
	return flinkv1beta1.AdaptiveScheduler(conf)
}

// pickJob returns the job with the recorded id, else the newest job.
func pickJob(jobs []flink.JobOverview, id string) *flink.JobOverview {
	var best *flink.JobOverview
	for i := range jobs {
		j := &jobs[i]
		if id != "" && j.ID == id {
			return j
		}
		if best == nil || j.StartTime > best.StartTime {
			best = j
		}
	}
	return best
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
}

// lastLines is the last n lines of s, joined with " | ".
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// budgetRefused reports whether a call of api found the operator's REST answer budget spent
// (a client that keeps no such account never does).
func budgetRefused(api any) bool {
	r, ok := api.(interface{ AnswerBudgetRefused() bool })
	return ok && r.AnswerBudgetRefused()
}

// withBudget bounds ctx by budget (none when budget is 0).
func withBudget(ctx context.Context, budget time.Duration) (context.Context, context.CancelFunc) {
	if budget <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, budget)
}

// numRestarts reads the job's restart count as the Apache operator's health check does: the
// numRestarts metric, else the older fullRestarts; nil when Flink reports neither (or does not
// answer), and the health check then skips the restarts.
func numRestarts(ctx context.Context, api FlinkAPI, jobID string) *int64 {
	m, err := api.JobMetrics(ctx, jobID, "numRestarts", "fullRestarts")
	if err != nil {
		return nil
	}
	for _, name := range []string{"numRestarts", "fullRestarts"} {
		if n, err := strconv.ParseInt(strings.TrimSpace(m[name]), 10, 64); err == nil && n >= 0 {
			return &n
		}
	}
	return nil
}

// exceptionsOf says whether a job's exception history is read in a state: in every state in
// which it may have failed since the last look (FAILED included), as the Apache operator reads
// it while the job had not ended at the last look (a job waiting for slots is CREATED, and its
// slot request times out there).
func exceptionsOf(s flink.JobState) bool {
	switch s {
	case flink.JobInitializing, flink.JobFinished, flink.JobCanceled, flink.JobSuspended:
		return false
	}
	return true
}

// observeExceptions reads a job's exception history: the failure cause of a failed job and the
// newest entries (JobException Events).
func observeExceptions(ctx context.Context, api FlinkAPI, job *flink.JobOverview, j *decide.JobObservation) {
	h, err := api.JobExceptions(ctx, job.ID)
	if err != nil || len(h.Entries) == 0 {
		return
	}
	if job.State == flink.JobFailed {
		j.FailureCause, j.FailureCauses = firstLine(h.Entries[0].StackTrace), decide.CauseLines(h.Entries[0].StackTrace)
	}
	for i, e := range h.Entries {
		if i < decide.MaxJobExceptions {
			j.Exceptions = append(j.Exceptions, decide.NewJobException(e.Timestamp, e.TaskName, e.StackTrace))
		}
	}
}

// savepointInProgress reports whether Flink is taking a savepoint of the job: one its checkpoint
// history lists in progress, or one pushed out of that history (the newest
// web.checkpoints.history triggers) by newer checkpoints, which counts.in_progress still counts.
// An unlisted checkpoint in progress counts too: with max-concurrent checkpoints 1 no newer one
// starts while it runs, so an unlisted one is all but always a long savepoint.
func savepointInProgress(st *flink.CheckpointingStatistics) bool {
	listed := 0
	for _, c := range st.History {
		if c.Status == "IN_PROGRESS" {
			if c.IsSavepoint {
				return true
			}
			listed++
		}
	}
	return int(st.Counts.InProgress) > listed
}

// liveJobs are the ids of the jobs not globally terminal, sorted (Flink lists them in no
// order, and the message naming them must not change with it), at most decide.MaxListedJobs.
func liveJobs(jobs []flink.JobOverview) []string {
	var out []string
	for _, j := range jobs {
		if !j.State.IsGloballyTerminal() {
			out = append(out, j.ID)
		}
	}
	slices.Sort(out)
	return out[:min(len(out), decide.MaxListedJobs)]
}
