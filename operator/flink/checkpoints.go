package flink

import (
	"context"
	"net/http"
	"strconv"
)

// CheckpointStats is one CheckpointStatistics entry (completed, failed or in progress).
type CheckpointStats struct {
	// ClassName is completed, failed or in_progress.
	ClassName          string  `json:"className"`
	ID                 int64   `json:"id"`
	Status             string  `json:"status"`
	IsSavepoint        bool    `json:"is_savepoint"`
	SavepointFormat    *string `json:"savepointFormat"`
	CheckpointType     string  `json:"checkpoint_type"`
	TriggerTimestamp   int64   `json:"trigger_timestamp"`
	LatestAckTimestamp int64   `json:"latest_ack_timestamp"`
	StateSize          int64   `json:"state_size"`
	// ExternalPath is where a completed checkpoint lives.
	ExternalPath string `json:"external_path,omitempty"`
	Discarded    bool   `json:"discarded,omitempty"`
	// FailureMessage says why a failed checkpoint failed.
	FailureMessage   string `json:"failure_message,omitempty"`
	FailureTimestamp int64  `json:"failure_timestamp,omitempty"`
}

// RestoredCheckpoint is the checkpoint or savepoint a job restored from.
type RestoredCheckpoint struct {
	ID               int64  `json:"id"`
	RestoreTimestamp int64  `json:"restore_timestamp"`
	IsSavepoint      bool   `json:"is_savepoint"`
	ExternalPath     string `json:"external_path"`
}

// CheckpointingStatistics is GET /jobs/:jobid/checkpoints.
type CheckpointingStatistics struct {
	Counts struct {
		Restored   int64 `json:"restored"`
		Total      int64 `json:"total"`
		InProgress int32 `json:"in_progress"`
		Completed  int64 `json:"completed"`
		Failed     int64 `json:"failed"`
	} `json:"counts"`
	Latest struct {
		// Each is nil when there is none.
		Completed *CheckpointStats    `json:"completed"`
		Savepoint *CheckpointStats    `json:"savepoint"`
		Failed    *CheckpointStats    `json:"failed"`
		Restored  *RestoredCheckpoint `json:"restored"`
	} `json:"latest"`
	History []CheckpointStats `json:"history"`
}

// CheckpointConfig is GET /jobs/:jobid/checkpoints/config (the fields the operator uses).
type CheckpointConfig struct {
	// Mode is exactly_once or at_least_once (lower-case in the JSON).
	Mode            string `json:"mode"`
	Interval        int64  `json:"interval"`
	Timeout         int64  `json:"timeout"`
	Externalization struct {
		Enabled              bool `json:"enabled"`
		DeleteOnCancellation bool `json:"delete_on_cancellation"`
	} `json:"externalization"`
	StateBackend      string `json:"state_backend"`
	CheckpointStorage string `json:"checkpoint_storage"`
}

// Checkpoints returns a job's checkpointing statistics.
func (c *Client) Checkpoints(ctx context.Context, jobID string) (*CheckpointingStatistics, error) {
	var out CheckpointingStatistics
	if err := c.call(ctx, http.MethodGet, "/jobs/"+escape(jobID)+"/checkpoints", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CheckpointConfig returns a job's checkpointing configuration.
func (c *Client) CheckpointConfig(ctx context.Context, jobID string) (*CheckpointConfig, error) {
	var out CheckpointConfig
	if err := c.call(ctx, http.MethodGet, "/jobs/"+escape(jobID)+"/checkpoints/config", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CheckpointDetails returns one checkpoint's statistics.
func (c *Client) CheckpointDetails(ctx context.Context, jobID string, checkpointID int64) (*CheckpointStats, error) {
	var out CheckpointStats
	path := "/jobs/" + escape(jobID) + "/checkpoints/details/" + strconv.FormatInt(checkpointID, 10)
	if err := c.call(ctx, http.MethodGet, path, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
