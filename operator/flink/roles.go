package flink

import (
	"context"
	"io"
)

// The role interfaces: each user depends on the smallest view it needs, and tests fake only
// that. *Client implements them all.

// JobStatusReader observes jobs.
type JobStatusReader interface {
	ListJobs(ctx context.Context) ([]JobOverview, error)
	JobExceptions(ctx context.Context, jobID string) (*ExceptionHistory, error)
	Checkpoints(ctx context.Context, jobID string) (*CheckpointingStatistics, error)
}

// Snapshotter triggers and polls savepoints and checkpoints and disposes of savepoints.
type Snapshotter interface {
	TriggerSavepoint(ctx context.Context, jobID string, req SavepointRequest) (string, error)
	SavepointStatus(ctx context.Context, jobID, triggerID string) (*SavepointResult, error)
	TriggerCheckpoint(ctx context.Context, jobID, checkpointType, triggerID string) (string, error)
	CheckpointStatus(ctx context.Context, jobID, triggerID string) (*CheckpointResult, error)
	DisposeSavepoint(ctx context.Context, path string) (string, error)
}

// JobController stops jobs.
type JobController interface {
	CancelJob(ctx context.Context, jobID string) error
	StopWithSavepoint(ctx context.Context, jobID string, req StopRequest) (string, error)
}

// JarRunner submits jobs to a session cluster.
type JarRunner interface {
	UploadJar(ctx context.Context, name string, jar io.Reader, size int64) (string, error)
	RunJar(ctx context.Context, jarID string, req RunJarRequest) (string, error)
	DeleteJar(ctx context.Context, jarID string) error
}

// ClusterInfoReader reads facts about the cluster.
type ClusterInfoReader interface {
	DashboardConfig(ctx context.Context) (*DashboardConfig, error)
	Overview(ctx context.Context) (*ClusterOverview, error)
}

// Scaler rescales jobs in place.
type Scaler interface {
	ResourceRequirements(ctx context.Context, jobID string) (ResourceRequirements, error)
	SetResourceRequirements(ctx context.Context, jobID string, req ResourceRequirements) error
}

var (
	_ JobStatusReader   = (*Client)(nil)
	_ Snapshotter       = (*Client)(nil)
	_ JobController     = (*Client)(nil)
	_ JarRunner         = (*Client)(nil)
	_ ClusterInfoReader = (*Client)(nil)
	_ Scaler            = (*Client)(nil)
)
