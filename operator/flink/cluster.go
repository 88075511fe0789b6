package flink

import (
	"context"
	"net/http"
)

// DashboardConfig is GET /config.
type DashboardConfig struct {
	RefreshInterval int64  `json:"refresh-interval"`
	TimezoneName    string `json:"timezone-name"`
	FlinkVersion    string `json:"flink-version"`
	FlinkRevision   string `json:"flink-revision"`
	Features        struct {
		WebSubmit  bool `json:"web-submit"`
		WebCancel  bool `json:"web-cancel"`
		WebRescale bool `json:"web-rescale"`
		WebHistory bool `json:"web-history"`
	} `json:"features"`
}

// ClusterOverview is GET /overview.
type ClusterOverview struct {
	TaskManagers   int32  `json:"taskmanagers"`
	SlotsTotal     int32  `json:"slots-total"`
	SlotsAvailable int32  `json:"slots-available"`
	JobsRunning    int32  `json:"jobs-running"`
	JobsFinished   int32  `json:"jobs-finished"`
	JobsCancelled  int32  `json:"jobs-cancelled"`
	JobsFailed     int32  `json:"jobs-failed"`
	FlinkVersion   string `json:"flink-version"`
	FlinkCommit    string `json:"flink-commit"`
}

// TaskManager is one entry of GET /taskmanagers.
type TaskManager struct {
	// ID is free-form (the pod name on Kubernetes).
	ID          string `json:"id"`
	SlotsNumber int32  `json:"slotsNumber"`
	FreeSlots   int32  `json:"freeSlots"`
}

// DashboardConfig returns the JobManager's dashboard configuration (version, features).
func (c *Client) DashboardConfig(ctx context.Context) (*DashboardConfig, error) {
	var out DashboardConfig
	if err := c.call(ctx, http.MethodGet, "/config", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Overview returns the cluster overview.
func (c *Client) Overview(ctx context.Context) (*ClusterOverview, error) {
	var out ClusterOverview
	if err := c.call(ctx, http.MethodGet, "/overview", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// JobManagerConfig returns the JobManager's effective configuration as a map.
func (c *Client) JobManagerConfig(ctx context.Context) (map[string]string, error) {
	var out []struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	}
	if err := c.call(ctx, http.MethodGet, "/jobmanager/config", nil, &out); err != nil {
		return nil, err
	}
	m := make(map[string]string, len(out))
	for _, e := range out {
		m[e.Key] = e.Value
	}
	return m, nil
}

// TaskManagers lists the registered TaskManagers.
func (c *Client) TaskManagers(ctx context.Context) ([]TaskManager, error) {
	var out struct {
		TaskManagers []TaskManager `json:"taskmanagers"`
	}
	if err := c.call(ctx, http.MethodGet, "/taskmanagers", nil, &out); err != nil {
		return nil, err
	}
	return out.TaskManagers, nil
}
