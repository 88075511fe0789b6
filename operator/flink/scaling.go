package flink

import (
	"context"
	"net/http"
	"net/url"
	"strings"
)

// ParallelismBounds bound a vertex's parallelism.
type ParallelismBounds struct {
	LowerBound int32 `json:"lowerBound"`
	UpperBound int32 `json:"upperBound"`
}

// VertexRequirements are one vertex's resource requirements.
type VertexRequirements struct {
	Parallelism ParallelismBounds `json:"parallelism"`
}

// ResourceRequirements map vertex ids to their requirements.
type ResourceRequirements map[string]VertexRequirements

// Metric is one job-scope metric value.
type Metric struct {
	ID    string `json:"id"`
	Value string `json:"value"`
}

// AggregatedMetric is one metric aggregated over subtasks; aggregations not asked for are nil.
type AggregatedMetric struct {
	ID   string `json:"id"`
	Min  *Float `json:"min,omitempty"`
	Max  *Float `json:"max,omitempty"`
	Avg  *Float `json:"avg,omitempty"`
	Sum  *Float `json:"sum,omitempty"`
	Skew *Float `json:"skew,omitempty"`
}

// ResourceRequirements returns a job's per-vertex parallelism bounds (Flink ≥ 1.18).
func (c *Client) ResourceRequirements(ctx context.Context, jobID string) (ResourceRequirements, error) {
	var out ResourceRequirements
	if err := c.call(ctx, http.MethodGet, "/jobs/"+escape(jobID)+"/resource-requirements", nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// SetResourceRequirements rescales a job in place; it needs the adaptive scheduler (otherwise
// Flink answers 500) and must list every vertex.
func (c *Client) SetResourceRequirements(ctx context.Context, jobID string, req ResourceRequirements) error {
	return c.call(ctx, http.MethodPut, "/jobs/"+escape(jobID)+"/resource-requirements", req, nil)
}

// JobMetrics returns the named job-scope metrics; names Flink does not know are left out.
func (c *Client) JobMetrics(ctx context.Context, jobID string, names ...string) (map[string]string, error) {
	var out []Metric
	p := "/jobs/" + escape(jobID) + "/metrics"
	if len(names) > 0 {
		p += "?get=" + url.QueryEscape(strings.Join(names, ","))
	}
	if err := c.call(ctx, http.MethodGet, p, nil, &out); err != nil {
		return nil, err
	}
	m := make(map[string]string, len(out))
	for _, e := range out {
		m[e.ID] = e.Value
	}
	return m, nil
}

// SubtaskMetrics returns metrics of a vertex aggregated over its subtasks (aggs: min, max,
// avg, sum, skew; none means all). Flink answers nothing at all when one of names has no
// values: ask for an optional metric on its own.
func (c *Client) SubtaskMetrics(ctx context.Context, jobID, vertexID string, names, aggs []string) ([]AggregatedMetric, error) {
	q := url.Values{}
	if len(names) > 0 {
		q.Set("get", strings.Join(names, ","))
	}
	if len(aggs) > 0 {
		q.Set("agg", strings.Join(aggs, ","))
	}
	p := "/jobs/" + escape(jobID) + "/vertices/" + escape(vertexID) + "/subtasks/metrics"
	if len(q) > 0 {
		p += "?" + q.Encode()
	}
	var out []AggregatedMetric
	if err := c.call(ctx, http.MethodGet, p, nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}
