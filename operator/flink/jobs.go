package flink

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
)

// JobState is a Flink job state (RUNNING, FAILED, CANCELLING, …).
type JobState string

// The job states the operator reasons about.
const (
	JobInitializing JobState = "INITIALIZING"
	JobCreated      JobState = "CREATED"
	JobRunning      JobState = "RUNNING"
	JobFailing      JobState = "FAILING"
	JobFailed       JobState = "FAILED"
	JobCancelling   JobState = "CANCELLING"
	JobCanceled     JobState = "CANCELED"
	JobFinished     JobState = "FINISHED"
	JobRestarting   JobState = "RESTARTING"
	JobSuspended    JobState = "SUSPENDED"
	JobReconciling  JobState = "RECONCILING"
)

// IsGloballyTerminal reports FAILED, CANCELED and FINISHED.
func (s JobState) IsGloballyTerminal() bool {
	return s == JobFailed || s == JobCanceled || s == JobFinished
}

// JobOverview is one entry of GET /jobs/overview.
type JobOverview struct {
	ID               string           `json:"jid"`
	Name             string           `json:"name"`
	State            JobState         `json:"state"`
	StartTime        int64            `json:"start-time"`
	EndTime          int64            `json:"end-time"`
	Duration         int64            `json:"duration"`
	LastModification int64            `json:"last-modification"`
	Tasks            map[string]int32 `json:"tasks"`
}

// Vertex is one vertex of a job.
type Vertex struct {
	ID             string        `json:"id"`
	Name           string        `json:"name"`
	Parallelism    int32         `json:"parallelism"`
	MaxParallelism int32         `json:"maxParallelism"`
	Status         string        `json:"status"`
	Metrics        VertexMetrics `json:"metrics"`
}

// VertexMetrics are a vertex's I/O totals over its subtasks (the fields the operator uses).
type VertexMetrics struct {
	// AccumulatedBusyTime is the busy time of the vertex's subtasks since they started, in ms.
	AccumulatedBusyTime Float `json:"accumulated-busy-time"`
}

// Float is a JSON number that Flink may also write as a string ("NaN", "Infinity"): Jackson
// writes the doubles JSON has no number for as strings.
type Float float64

// UnmarshalJSON implements json.Unmarshaler.
func (f *Float) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			v = math.NaN()
		}
		*f = Float(v)
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = Float(v)
	return nil
}

// Plan is a job's plan: its vertices and their inputs.
type Plan struct {
	Nodes []PlanNode `json:"nodes"`
}

// PlanNode is one vertex of a plan.
type PlanNode struct {
	ID     string      `json:"id"`
	Inputs []PlanInput `json:"inputs"`
}

// PlanInput is one input of a plan node: the vertex feeding it and how (HASH: by key).
type PlanInput struct {
	ID           string `json:"id"`
	ShipStrategy string `json:"ship_strategy"`
}

// JobDetails is GET /jobs/:jobid (the fields the operator uses).
type JobDetails struct {
	ID         string           `json:"jid"`
	Name       string           `json:"name"`
	State      JobState         `json:"state"`
	StartTime  int64            `json:"start-time"`
	EndTime    int64            `json:"end-time"`
	Now        int64            `json:"now"`
	Timestamps map[string]int64 `json:"timestamps"`
	JobType    string           `json:"job-type"`
	Vertices   []Vertex         `json:"vertices"`
	Plan       Plan             `json:"plan"`
}

// ExceptionEntry is one entry of a job's exception history.
type ExceptionEntry struct {
	Name       string `json:"exceptionName"`
	StackTrace string `json:"stacktrace"`
	Timestamp  int64  `json:"timestamp"`
	TaskName   string `json:"taskName,omitempty"`
}

// ExceptionHistory is GET /jobs/:jobid/exceptions (Flink ≥ 2.0 shape; entries newest first).
type ExceptionHistory struct {
	Entries   []ExceptionEntry `json:"entries"`
	Truncated bool             `json:"truncated"`
}

// FailureCause is Flink's SerializedThrowable: the exception class and stack trace.
type FailureCause struct {
	Class      string `json:"class"`
	StackTrace string `json:"stack-trace"`
}

// Summary is the first line of the stack trace (the exception and its message).
func (f *FailureCause) Summary() string {
	if f == nil {
		return ""
	}
	for i, r := range f.StackTrace {
		if r == '\n' {
			return f.StackTrace[:i]
		}
	}
	if f.StackTrace == "" {
		return f.Class
	}
	return f.StackTrace
}

// ExecutionResult is GET /jobs/:jobid/execution-result.
type ExecutionResult struct {
	// Done is false while the job has not ended.
	Done bool
	// ApplicationStatus is SUCCEEDED, FAILED, CANCELED or UNKNOWN.
	ApplicationStatus string
	// NetRuntime is the job's run time in milliseconds.
	NetRuntime int64
	// Failure is the cause of a failed job.
	Failure *FailureCause
}

// ListJobs returns every job the JobManager knows (GET /jobs/overview).
func (c *Client) ListJobs(ctx context.Context) ([]JobOverview, error) {
	var out struct {
		Jobs []JobOverview `json:"jobs"`
	}
	if err := c.call(ctx, http.MethodGet, "/jobs/overview", nil, &out); err != nil {
		return nil, err
	}
	return out.Jobs, nil
}

// JobDetails returns one job (GET /jobs/:jobid).
func (c *Client) JobDetails(ctx context.Context, jobID string) (*JobDetails, error) {
	var out JobDetails
	if err := c.call(ctx, http.MethodGet, "/jobs/"+escape(jobID), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// JobState returns a job's state (GET /jobs/:jobid/status, the cheapest poll).
func (c *Client) JobState(ctx context.Context, jobID string) (JobState, error) {
	var out struct {
		Status JobState `json:"status"`
	}
	if err := c.call(ctx, http.MethodGet, "/jobs/"+escape(jobID)+"/status", nil, &out); err != nil {
		return "", err
	}
	return out.Status, nil
}

// JobExceptions returns a job's exception history.
func (c *Client) JobExceptions(ctx context.Context, jobID string) (*ExceptionHistory, error) {
	var out struct {
		History ExceptionHistory `json:"exceptionHistory"`
	}
	if err := c.call(ctx, http.MethodGet, "/jobs/"+escape(jobID)+"/exceptions", nil, &out); err != nil {
		return nil, err
	}
	return &out.History, nil
}

// ExecutionResult returns a job's result once it ended.
func (c *Client) ExecutionResult(ctx context.Context, jobID string) (*ExecutionResult, error) {
	var out struct {
		Status queueStatus `json:"status"`
		Result *struct {
			ApplicationStatus string        `json:"application-status"`
			NetRuntime        int64         `json:"net-runtime"`
			FailureCause      *FailureCause `json:"failure-cause"`
		} `json:"job-execution-result"`
	}
	if err := c.call(ctx, http.MethodGet, "/jobs/"+escape(jobID)+"/execution-result", nil, &out); err != nil {
		return nil, err
	}
	res := &ExecutionResult{Done: out.Status.ID == statusCompleted}
	if out.Result != nil {
		res.ApplicationStatus, res.NetRuntime, res.Failure = out.Result.ApplicationStatus, out.Result.NetRuntime, out.Result.FailureCause
	}
	return res, nil
}

// CancelJob cancels a job (PATCH /jobs/:jobid?mode=cancel), within the cancel timeout.
// Cancelling a job that already ended answers 409 (IsConflict).
func (c *Client) CancelJob(ctx context.Context, jobID string) error {
	return c.callWithin(ctx, c.cancelTimeout, http.MethodPatch, "/jobs/"+escape(jobID)+"?mode=cancel", nil, nil)
}

// queueStatus is the status of an asynchronous operation.
type queueStatus struct {
	ID string `json:"id"`
}

const statusCompleted = "COMPLETED"
