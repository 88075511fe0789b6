package rest

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/flinkop/flinkop/fakeflink"
)

// vertexRoutes serve a job's vertices and their subtasks. A job has two vertices (source and
// sink) of the job's parallelism; subtask i of both shares slot i, and slots are handed out
// over the TaskManagers in id order.
func (s *Server) vertexRoutes() {
	s.handle("GET /jobs/{jobid}/vertices/{vertexid}", withVertex(func(c *fakeflink.Cluster, v vertex, _ *http.Request) (int, any, error) {
		subtasks := []map[string]any{}
		for i := range v.parallelism() {
			subtasks = append(subtasks, subtaskInfo(c, v, i))
		}
		return http.StatusOK, map[string]any{
			"id": v.id, "name": v.name(), "parallelism": v.parallelism(), "maxParallelism": v.info.MaxParallelism,
			"now": c.Now().UnixMilli(), "subtasks": subtasks, "aggregated": aggregated(c, v),
		}, nil
	}))
	s.handle("GET /jobs/{jobid}/vertices/{vertexid}/subtasks/{subtaskindex}", withSubtask(func(c *fakeflink.Cluster, v vertex, i int, _ *http.Request) (int, any, error) {
		return http.StatusOK, subtaskInfo(c, v, i), nil
	}))
	s.handle("GET /jobs/{jobid}/vertices/{vertexid}/subtasks/{subtaskindex}/attempts/{attempt}", withAttempt(func(c *fakeflink.Cluster, v vertex, i int, _ *http.Request) (int, any, error) {
		return http.StatusOK, subtaskInfo(c, v, i), nil
	}))
	s.handle("GET /jobs/{jobid}/vertices/{vertexid}/subtasks/{subtaskindex}/attempts/{attempt}/accumulators", withAttempt(func(_ *fakeflink.Cluster, v vertex, i int, _ *http.Request) (int, any, error) {
		return http.StatusOK, map[string]any{"subtask": i, "attempt": v.job.Restarts(), "id": v.id, "user-accumulators": []any{}}, nil
	}))
	s.handle("GET /jobs/{jobid}/vertices/{vertexid}/subtasks/{subtaskindex}/metrics", withSubtask(func(c *fakeflink.Cluster, v vertex, _ int, r *http.Request) (int, any, error) {
		return http.StatusOK, metricValues(subtaskMetricValues(c, v), r), nil
	}))
	s.handle("GET /jobs/{jobid}/vertices/{vertexid}/subtasktimes", withVertex(func(c *fakeflink.Cluster, v vertex, _ *http.Request) (int, any, error) {
		out := []map[string]any{}
		for i := range v.parallelism() {
			out = append(out, map[string]any{
				"subtask": i, "endpoint": v.endpoint(c, i), "duration": duration(c, v.job),
				"timestamps": stateTimestamps(v.job),
			})
		}
		return http.StatusOK, map[string]any{"id": v.id, "name": v.name(), "now": c.Now().UnixMilli(), "subtasks": out}, nil
	}))
	s.handle("GET /jobs/{jobid}/vertices/{vertexid}/taskmanagers", withVertex(func(c *fakeflink.Cluster, v vertex, _ *http.Request) (int, any, error) {
		return http.StatusOK, map[string]any{"id": v.id, "name": v.name(), "now": c.Now().UnixMilli(), "taskmanagers": vertexTaskManagers(c, v)}, nil
	}))
	s.handle("GET /jobs/{jobid}/vertices/{vertexid}/accumulators", withVertex(func(_ *fakeflink.Cluster, v vertex, _ *http.Request) (int, any, error) {
		return http.StatusOK, map[string]any{"id": v.id, "user-accumulators": []any{}}, nil
	}))
	s.handle("GET /jobs/{jobid}/vertices/{vertexid}/subtasks/accumulators", withVertex(func(c *fakeflink.Cluster, v vertex, _ *http.Request) (int, any, error) {
		out := []map[string]any{}
		for i := range v.parallelism() {
			out = append(out, map[string]any{"subtask": i, "attempt": v.job.Restarts(), "endpoint": v.endpoint(c, i), "user-accumulators": []any{}})
		}
		return http.StatusOK, map[string]any{"id": v.id, "parallelism": v.parallelism(), "subtasks": out}, nil
	}))
	s.handle("GET /jobs/{jobid}/vertices/{vertexid}/backpressure", withVertex(func(c *fakeflink.Cluster, v vertex, _ *http.Request) (int, any, error) {
		// Back pressure is read from the tasks' busy/back-pressured time; the fake's sink keeps up.
		subtasks := []map[string]any{}
		for i := range v.parallelism() {
			subtasks = append(subtasks, map[string]any{
				"subtask": i, "attempt-number": v.job.Restarts(), "backpressureLevel": "ok",
				"ratio": 0.0, "idleRatio": 0.5, "busyRatio": 0.5,
			})
		}
		if v.job.Status != fakeflink.StatusRunning {
			subtasks = []map[string]any{}
		}
		return http.StatusOK, map[string]any{
			"status": "ok", "backpressureLevel": "ok", "end-timestamp": c.Now().UnixMilli(), "subtasks": subtasks,
		}, nil
	}))
	s.handle("GET /jobs/{jobid}/vertices/{vertexid}/watermarks", withVertex(func(c *fakeflink.Cluster, v vertex, _ *http.Request) (int, any, error) {
		out := []map[string]string{} // a bare array, as the other metric endpoints
		for i := range v.parallelism() {
			out = append(out, map[string]string{"id": strconv.Itoa(i) + ".currentInputWatermark", "value": strconv.FormatInt(minWatermark(c, v.job), 10)})
		}
		return http.StatusOK, out, nil
	}))
	s.handle("GET /jobs/{jobid}/vertices/{vertexid}/metrics", withVertex(func(c *fakeflink.Cluster, v vertex, r *http.Request) (int, any, error) {
		vals, each := map[string]string{}, subtaskMetricValues(c, v)
		for i := range v.parallelism() {
			for k, val := range each {
				vals[strconv.Itoa(i)+"."+k] = val
			}
		}
		return http.StatusOK, metricValues(vals, r), nil
	}))
	s.handle("GET /jobs/{jobid}/vertices/{vertexid}/jm-operator-metrics", withVertex(func(_ *fakeflink.Cluster, _ vertex, r *http.Request) (int, any, error) {
		return http.StatusOK, metricValues(map[string]string{}, r), nil // only sources with coordinators report here
	}))
	s.handle("GET /jobs/{jobid}/vertices/{vertexid}/flamegraph", withVertex(func(c *fakeflink.Cluster, _ vertex, _ *http.Request) (int, any, error) {
		// Flink answers with an empty graph unless rest.flamegraph.enabled is set.
		if !configEnabled(c, "rest.flamegraph.enabled") {
			return http.StatusOK, map[string]any{"endTimestamp": c.Now().UnixMilli(), "data": map[string]any{"name": "", "value": 0, "children": []any{}}}, nil
		}
		return http.StatusOK, map[string]any{"endTimestamp": c.Now().UnixMilli(), "data": map[string]any{
			"name": "root", "value": 1, "children": []any{map[string]any{"name": "java.lang.Thread.run", "value": 1, "children": []any{}}},
		}}, nil
	}))
}

// vertex is one of a job's vertices.
type vertex struct {
	job   *fakeflink.Job
	index int
	id    string
	info  fakeflink.Vertex
}

func (v vertex) name() string     { return v.info.Name }
func (v vertex) parallelism() int { return v.info.Parallelism }

// endpoint is the host:port of the TaskManager running subtask i ("(unassigned)" when none).
func (v vertex) endpoint(c *fakeflink.Cluster, i int) string {
	if tm := slotOwner(c, i); tm != "" {
		return tm + ":6122"
	}
	return "(unassigned)"
}

// slotOwner is the TaskManager holding slot i, filling TaskManagers in id order.
func slotOwner(c *fakeflink.Cluster, slot int) string {
	tms := c.TaskManagers()
	for _, id := range slices.Sorted(maps.Keys(tms)) {
		if slot < tms[id] {
			return id
		}
		slot -= tms[id]
	}
	return ""
}

func withVertex(h func(c *fakeflink.Cluster, v vertex, r *http.Request) (int, any, error)) handlerFunc {
	return withJob(func(c *fakeflink.Cluster, j *fakeflink.Job, r *http.Request) (int, any, error) {
		id := r.PathValue("vertexid")
		vs := j.Vertices()
		i := slices.IndexFunc(vs, func(v fakeflink.Vertex) bool { return v.ID == id })
		if i < 0 {
			return http.StatusNotFound, errorBody{Errors: []string{fmt.Sprintf("No vertex with ID '%s' exists.", id)}}, nil
		}
		return h(c, vertex{job: j, index: i, id: id, info: vs[i]}, r)
	})
}

func withSubtask(h func(c *fakeflink.Cluster, v vertex, i int, r *http.Request) (int, any, error)) handlerFunc {
	return withVertex(func(c *fakeflink.Cluster, v vertex, r *http.Request) (int, any, error) {
		i, err := strconv.Atoi(r.PathValue("subtaskindex"))
		if err != nil {
			return 0, nil, badRequest("SubtaskIndexPathParameter", err)
		}
		if i < 0 || i >= v.parallelism() {
			return http.StatusNotFound, errorBody{Errors: []string{"Invalid subtask index for vertex " + v.id}}, nil
		}
		return h(c, v, i, r)
	})
}

// withAttempt resolves an attempt number: the current one (the job's restart count) or an
// earlier one, which Flink keeps in its execution history.
func withAttempt(h func(c *fakeflink.Cluster, v vertex, i int, r *http.Request) (int, any, error)) handlerFunc {
	return withSubtask(func(c *fakeflink.Cluster, v vertex, i int, r *http.Request) (int, any, error) {
		a, err := strconv.Atoi(r.PathValue("attempt"))
		if err != nil {
			return 0, nil, badRequest("SubtaskAttemptPathParameter", err)
		}
		if a < 0 || a > v.job.Restarts() {
			return http.StatusNotFound, errorBody{Errors: []string{fmt.Sprintf("Invalid attempt %d for subtask %d of vertex %s", a, i, v.id)}}, nil
		}
		return h(c, v, i, r)
	})
}

// subtaskInfo is SubtaskExecutionAttemptDetailsInfo for the current attempt of subtask i.
func subtaskInfo(c *fakeflink.Cluster, v vertex, i int) map[string]any {
	state := executionState(v.job.Status)
	durations := map[string]int64{}
	for _, st := range executionStates {
		durations[st] = 0
	}
	durations[state] = duration(c, v.job)
	return map[string]any{
		"subtask": i, "status": state, "attempt": v.job.Restarts(), "endpoint": v.endpoint(c, i),
		"start-time": v.job.StartTime.UnixMilli(), "end-time": endMillis(v.job), "duration": duration(c, v.job),
		"metrics": ioMetrics(c, v, i), "taskmanager-id": orUnassigned(slotOwner(c, i)),
		"status-duration": durations, "other-concurrent-attempts": []any{},
	}
}

func orUnassigned(s string) string {
	if s == "" {
		return "(unassigned)"
	}
	return s
}

// share is subtask i's part of n records spread over p subtasks.
func share(n int64, p, i int) int64 {
	if p <= 0 {
		return 0
	}
	out := n / int64(p)
	if int64(i) < n%int64(p) {
		out++
	}
	return out
}

// ioMetrics are a subtask's IOMetricsInfo: the source writes the records, the sink reads them.
func ioMetrics(c *fakeflink.Cluster, v vertex, i int) map[string]any {
	n := share(v.job.Offset(c.Now()), v.parallelism(), i)
	read, write := n, n
	if v.index == 0 {
		read = 0
	} else {
		write = 0
	}
	return map[string]any{
		"read-bytes": read * 8, "read-bytes-complete": true, "write-bytes": write * 8, "write-bytes-complete": true,
		"read-records": read, "read-records-complete": true, "write-records": write, "write-records-complete": true,
		"accumulated-backpressured-time": 0, "accumulated-idle-time": 0,
		"accumulated-busy-time": v.job.AccumulatedBusyMs(v.index, c.Now()) / float64(max(1, v.parallelism())),
	}
}

// vertexTaskManagers groups a vertex's subtasks by TaskManager.
func vertexTaskManagers(c *fakeflink.Cluster, v vertex) []map[string]any {
	byTM := map[string][]int{}
	for i := range v.parallelism() {
		tm := orUnassigned(slotOwner(c, i))
		byTM[tm] = append(byTM[tm], i)
	}
	out := []map[string]any{}
	for _, tm := range slices.Sorted(maps.Keys(byTM)) {
		counts := map[string]int{}
		for _, st := range executionStates {
			counts[st] = 0
		}
		counts[executionState(v.job.Status)] = len(byTM[tm])
		endpoint := tm + ":6122"
		if tm == "(unassigned)" {
			endpoint = tm
		}
		out = append(out, map[string]any{
			"endpoint": endpoint, "taskmanager-id": tm, "status": executionState(v.job.Status),
			"start-time": v.job.StartTime.UnixMilli(), "end-time": endMillis(v.job), "duration": duration(c, v.job),
			"metrics": ioMetrics(c, v, byTM[tm][0]), "status-counts": counts, "aggregated": aggregated(c, v),
		})
	}
	return out
}

// minWatermark is Long.MIN_VALUE (no watermark yet) until the job runs, then the clock.
func minWatermark(c *fakeflink.Cluster, j *fakeflink.Job) int64 {
	if j.Status != fakeflink.StatusRunning {
		return -9223372036854775808
	}
	return c.Now().UnixMilli()
}

// stateTimestamps are a subtask's ExecutionState timestamps (0 for states not reached).
func stateTimestamps(j *fakeflink.Job) map[string]int64 {
	out := map[string]int64{}
	for _, st := range executionStates {
		out[st] = 0
	}
	out[executionState(j.Status)] = j.LastModification.UnixMilli()
	return out
}

func configEnabled(c *fakeflink.Cluster, key string) bool {
	return configValue(c, key) == "true"
}
