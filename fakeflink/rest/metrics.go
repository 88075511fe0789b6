package rest

import (
	"maps"
	"net/http"
	"slices"

	"github.com/flinkop/flinkop/fakeflink"
)

func (s *Server) metricRoutes() {
	s.handle("GET /jobs/{jobid}/metrics", withJob(func(c *fakeflink.Cluster, j *fakeflink.Job, r *http.Request) (int, any, error) {
		m, err := c.JobMetrics(j.ID)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, metricValues(m, r), nil
	}))
	s.handle("GET /jobs/metrics", func(c *fakeflink.Cluster, r *http.Request) (int, any, error) {
		per := map[string]map[string]string{}
		for _, j := range c.Jobs() {
			if !selected(r, "jobs", j.ID) {
				continue
			}
			m, err := c.JobMetrics(j.ID)
			if err != nil {
				return 0, nil, err
			}
			per[j.ID] = m
		}
		return http.StatusOK, aggregate(per, r), nil
	})
	s.handle("GET /jobs/{jobid}/vertices/{vertexid}/subtasks/metrics", withVertex(subtaskMetrics))
	s.handle("GET /jobs/{jobid}/resource-requirements", func(c *fakeflink.Cluster, r *http.Request) (int, any, error) {
		req, err := c.ResourceRequirements(r.PathValue("jobid"))
		if err != nil {
			return 0, nil, err
		}
		out := map[string]any{}
		for v, b := range req {
			out[v] = map[string]any{"parallelism": map[string]int{"lowerBound": b[0], "upperBound": b[1]}}
		}
		return http.StatusOK, out, nil
	})
	s.handle("PUT /jobs/{jobid}/resource-requirements", func(c *fakeflink.Cluster, r *http.Request) (int, any, error) {
		var body map[string]struct {
			Parallelism struct {
				LowerBound int `json:"lowerBound"`
				UpperBound int `json:"upperBound"`
			} `json:"parallelism"`
		}
		if err := decodeBody(r, "JobResourceRequirementsBody", &body); err != nil {
			return 0, nil, err
		}
		req := map[string][2]int{}
		for v, b := range body {
			req[v] = [2]int{b.Parallelism.LowerBound, b.Parallelism.UpperBound}
		}
		if err := c.SetResourceRequirements(r.PathValue("jobid"), req); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, map[string]any{}, nil
	})
}

// metricValues answers a metric collection request (a bare JSON array): without ?get the
// names of the available metrics, with it the values of those named that exist (unknown
// names are left out, not errors).
func metricValues(m map[string]string, r *http.Request) []map[string]string {
	out := []map[string]string{}
	get := splitList(r.URL.Query().Get("get"))
	if len(get) == 0 {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			out = append(out, map[string]string{"id": k})
		}
		return out
	}
	for _, k := range get {
		if v, ok := m[k]; ok {
			out = append(out, map[string]string{"id": k, "value": v})
		}
	}
	return out
}
