package flink

import (
	"context"
	"net/http"
)

// SavepointRequest is POST /jobs/:jobid/savepoints.
type SavepointRequest struct {
	// TargetDirectory overrides the cluster's default savepoint directory.
	TargetDirectory string `json:"target-directory,omitempty"`
	// CancelJob cancels the job once the savepoint completes (legacy cancel-with-savepoint).
	CancelJob bool `json:"cancel-job"`
	// FormatType is CANONICAL (default) or NATIVE.
	FormatType string `json:"formatType,omitempty"`
	// TriggerID makes the trigger idempotent: the same id never starts a second savepoint.
	TriggerID string `json:"triggerId,omitempty"`
}

// StopRequest is POST /jobs/:jobid/stop (stop-with-savepoint). Note the camelCase
// targetDirectory, unlike SavepointRequest.
type StopRequest struct {
	TargetDirectory string `json:"targetDirectory,omitempty"`
	// Drain sends MAX_WATERMARK before the savepoint.
	Drain      bool   `json:"drain"`
	FormatType string `json:"formatType,omitempty"`
	TriggerID  string `json:"triggerId,omitempty"`
}

// SavepointResult is the state of a savepoint (or stop-with-savepoint) operation.
type SavepointResult struct {
	// Done is false while it runs.
	Done bool
	// Location is the completed savepoint's path.
	Location string
	// Failure is set when it failed (Done is true then too).
	Failure *FailureCause
}

// CheckpointResult is the state of a triggered checkpoint.
type CheckpointResult struct {
	Done         bool
	CheckpointID int64
	Failure      *FailureCause
}

// TriggerSavepoint starts a savepoint and returns its trigger id.
func (c *Client) TriggerSavepoint(ctx context.Context, jobID string, req SavepointRequest) (string, error) {
	return c.trigger(ctx, http.MethodPost, "/jobs/"+escape(jobID)+"/savepoints", req)
}

// StopWithSavepoint starts stop-with-savepoint and returns its trigger id; poll it with
// SavepointStatus. On success the job ends FINISHED.
func (c *Client) StopWithSavepoint(ctx context.Context, jobID string, req StopRequest) (string, error) {
	return c.trigger(ctx, http.MethodPost, "/jobs/"+escape(jobID)+"/stop", req)
}

// SavepointStatus polls a savepoint. An unknown or expired trigger is IsNotFound.
func (c *Client) SavepointStatus(ctx context.Context, jobID, triggerID string) (*SavepointResult, error) {
	var out struct {
		Status    queueStatus `json:"status"`
		Operation *struct {
			Location     string        `json:"location"`
			FailureCause *FailureCause `json:"failure-cause"`
		} `json:"operation"`
	}
	if err := c.call(ctx, http.MethodGet, "/jobs/"+escape(jobID)+"/savepoints/"+escape(triggerID), nil, &out); err != nil {
		return nil, err
	}
	res := &SavepointResult{Done: out.Status.ID == statusCompleted}
	if out.Operation != nil {
		res.Location, res.Failure = out.Operation.Location, out.Operation.FailureCause
	}
	return res, nil
}

// TriggerCheckpoint starts a checkpoint (Flink ≥ 1.17); checkpointType is CONFIGURED or FULL.
func (c *Client) TriggerCheckpoint(ctx context.Context, jobID, checkpointType, triggerID string) (string, error) {
	req := map[string]string{}
	if checkpointType != "" {
		req["checkpointType"] = checkpointType
	}
	if triggerID != "" {
		req["triggerId"] = triggerID
	}
	return c.trigger(ctx, http.MethodPost, "/jobs/"+escape(jobID)+"/checkpoints", req)
}

// CheckpointStatus polls a triggered checkpoint (its failure is "failureCause", camelCase).
func (c *Client) CheckpointStatus(ctx context.Context, jobID, triggerID string) (*CheckpointResult, error) {
	var out struct {
		Status    queueStatus `json:"status"`
		Operation *struct {
			CheckpointID int64         `json:"checkpointId"`
			FailureCause *FailureCause `json:"failureCause"`
		} `json:"operation"`
	}
	if err := c.call(ctx, http.MethodGet, "/jobs/"+escape(jobID)+"/checkpoints/"+escape(triggerID), nil, &out); err != nil {
		return nil, err
	}
	res := &CheckpointResult{Done: out.Status.ID == statusCompleted}
	if out.Operation != nil {
		res.CheckpointID, res.Failure = out.Operation.CheckpointID, out.Operation.FailureCause
	}
	return res, nil
}

// DisposeSavepoint starts deleting a savepoint and returns the trigger id.
func (c *Client) DisposeSavepoint(ctx context.Context, path string) (string, error) {
	return c.trigger(ctx, http.MethodPost, "/savepoint-disposal", map[string]string{"savepoint-path": path})
}

// DisposalStatus polls a savepoint disposal; Failure is set when it failed.
func (c *Client) DisposalStatus(ctx context.Context, triggerID string) (done bool, failure *FailureCause, err error) {
	var out struct {
		Status    queueStatus `json:"status"`
		Operation *struct {
			FailureCause *FailureCause `json:"failure-cause"`
		} `json:"operation"`
	}
	if err := c.call(ctx, http.MethodGet, "/savepoint-disposal/"+escape(triggerID), nil, &out); err != nil {
		return false, nil, err
	}
	if out.Operation != nil {
		failure = out.Operation.FailureCause
	}
	return out.Status.ID == statusCompleted, failure, nil
}

func (c *Client) trigger(ctx context.Context, method, path string, req any) (string, error) {
	var out struct {
		RequestID string `json:"request-id"`
	}
	if err := c.call(ctx, method, path, req, &out); err != nil {
		return "", err
	}
	if out.RequestID == "" {
		return "", &Error{Method: method, Path: path, StatusCode: http.StatusAccepted, Err: errNoTrigger}
	}
	return out.RequestID, nil
}
