package rest

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/flinkop/flinkop/fakeflink"
)

// jobExtraRoutes serve the job endpoints that only read: configuration, plan, accumulators,
// per-checkpoint subtask statistics, log URLs, the client heartbeat, rescaling (disabled in
// Flink) and the adaptive scheduler's rescale history.
func (s *Server) jobExtraRoutes() {
	s.handle("GET /jobs/{jobid}/config", withJob(func(c *fakeflink.Cluster, j *fakeflink.Job, _ *http.Request) (int, any, error) {
		// JobConfigInfo has its own serializer: jid, name, execution-config.
		return http.StatusOK, map[string]any{"jid": j.ID, "name": j.Program.Name, "execution-config": map[string]any{
			"restart-strategy": restartStrategy(c), "job-parallelism": j.Parallelism(),
			"object-reuse-mode": false, "user-config": map[string]string{},
		}}, nil
	}))
	s.handle("GET /jobs/{jobid}/plan", withJob(func(_ *fakeflink.Cluster, j *fakeflink.Job, _ *http.Request) (int, any, error) {
		return http.StatusOK, map[string]any{"plan": jobPlan(j)}, nil
	}))
	s.handle("GET /jobs/{jobid}/accumulators", withJob(func(_ *fakeflink.Cluster, _ *fakeflink.Job, r *http.Request) (int, any, error) {
		out := map[string]any{"job-accumulators": []any{}, "user-task-accumulators": []any{}}
		if inc := r.URL.Query().Get("includeSerializedValue"); inc != "" {
			if _, err := strconv.ParseBool(inc); err != nil {
				return 0, nil, badRequest("AccumulatorsIncludeSerializedValueQueryParameter", err)
			}
			out["serialized-user-task-accumulators"] = map[string]any{}
		}
		return http.StatusOK, out, nil
	}))
	s.handle("GET /jobs/{jobid}/checkpoints/details/{checkpointid}/subtasks/{vertexid}", withJob(checkpointSubtasks))
	s.handle("PATCH /jobs/{jobid}/clientHeartbeat", withJob(func(_ *fakeflink.Cluster, _ *fakeflink.Job, r *http.Request) (int, any, error) {
		var body struct {
			Expired int64 `json:"expiredTimestamp"`
		}
		if err := decodeBody(r, "JobClientHeartbeatRequestBody", &body); err != nil {
			return 0, nil, err
		}
		return http.StatusAccepted, map[string]any{}, nil
	}))
	s.handle("GET /jobs/{jobid}/jobmanager/config", withJob(func(c *fakeflink.Cluster, _ *fakeflink.Job, _ *http.Request) (int, any, error) {
		return http.StatusOK, configEntries(c), nil
	}))
	s.handle("GET /jobs/{jobid}/jobmanager/environment", withJob(func(_ *fakeflink.Cluster, _ *fakeflink.Job, _ *http.Request) (int, any, error) {
		return http.StatusOK, environment(), nil
	}))
	// The log URL handlers fill a configured pattern and look nothing up.
	s.handle("GET /jobs/{jobid}/jobmanager/log-url", func(c *fakeflink.Cluster, r *http.Request) (int, any, error) {
		return logURL(c, "historyserver.log.jobmanager.url-pattern", r)
	})
	s.handle("GET /jobs/{jobid}/taskmanagers/{taskmanagerid}/log-url", func(c *fakeflink.Cluster, r *http.Request) (int, any, error) {
		return logURL(c, "historyserver.log.taskmanager.url-pattern", r)
	})
	rescalingDisabled := func(*fakeflink.Cluster, *http.Request) (int, any, error) {
		return http.StatusServiceUnavailable, errorBody{Errors: []string{"Rescaling is temporarily disabled. See FLINK-12312."}}, nil
	}
	s.handle("PATCH /jobs/{jobid}/rescaling", rescalingDisabled)
	s.handle("GET /jobs/{jobid}/rescaling/{triggerid}", rescalingDisabled)
	s.rescaleRoutes()
}

// restartStrategy is the restart strategy's description as ExecutionConfig prints it.
func restartStrategy(c *fakeflink.Cluster) string {
	for _, kv := range c.Config() {
		if kv[0] == "restart-strategy.type" && strings.EqualFold(kv[1], "none") {
			return "Restart deactivated."
		}
	}
	return "Cluster level default restart strategy"
}

// jobPlan is the job's JSON plan: a chain of vertices from the source to the sink, each fed
// by the one before it (forward for the plain source and sink, by key in a workload's chain).
func jobPlan(j *fakeflink.Job) map[string]any {
	vs := j.Vertices()
	ship := "FORWARD"
	if j.HasWorkload() {
		ship = "HASH"
	}
	nodes := []map[string]any{}
	for i, v := range vs {
		node := map[string]any{
			"id": v.ID, "parallelism": v.Parallelism, "operator": "", "operator_strategy": "",
			"description": v.Name, "optimizer_properties": map[string]any{},
		}
		if i > 0 {
			node["inputs"] = []map[string]any{{"num": 0, "id": vs[i-1].ID, "ship_strategy": ship, "exchange": "pipelined_bounded"}}
		}
		nodes = append(nodes, node)
	}
	return map[string]any{"jid": j.ID, "name": j.Program.Name, "type": jobType(j), "nodes": nodes}
}

// checkpointSubtasks is one vertex's part of a completed checkpoint.
func checkpointSubtasks(_ *fakeflink.Cluster, j *fakeflink.Job, r *http.Request) (int, any, error) {
	id, err := strconv.ParseInt(r.PathValue("checkpointid"), 10, 64)
	if err != nil {
		return 0, nil, badRequest("CheckpointIdPathParameter", err)
	}
	var snap *fakeflink.Snapshot
	for _, s := range j.Checkpoints() {
		if s.ID == id {
			snap = &s
		}
	}
	if snap == nil {
		return 0, nil, &fakeflink.Error{Kind: fakeflink.KindNotFound, Msg: "Could not find checkpointing statistics for checkpoint " + r.PathValue("checkpointid") + "."}
	}
	vid := r.PathValue("vertexid")
	at := slices.IndexFunc(j.Vertices(), func(v fakeflink.Vertex) bool { return v.ID == vid })
	if at < 0 {
		return 0, nil, &fakeflink.Error{Kind: fakeflink.KindNotFound, Msg: "There is no checkpoint statistics for task " + vid + "."}
	}
	ack := snap.Time.UnixMilli()
	subtasks := []map[string]any{}
	for i := range j.Vertices()[at].Parallelism {
		subtasks = append(subtasks, map[string]any{
			"index": i, "status": "completed", "className": "completed", "ack_timestamp": ack, "end_to_end_duration": 0,
			"state_size": 0, "checkpointed_size": 0,
			"checkpoint":  map[string]int{"sync": 0, "async": 0},
			"alignment":   map[string]int{"buffered": 0, "processed": 0, "persisted": 0, "duration": 0},
			"start_delay": 0, "unaligned_checkpoint": false, "aborted": false,
		})
	}
	zero := map[string]any{"min": 0, "max": 0, "avg": 0, "p50": 0.0, "p90": 0.0, "p95": 0.0, "p99": 0.0, "p999": 0.0}
	return http.StatusOK, map[string]any{
		"id": snap.ID, "status": "COMPLETED", "latest_ack_timestamp": ack, "checkpointed_size": 0, "state_size": 0,
		"end_to_end_duration": 0, "alignment_buffered": 0, "processed_data": 0, "persisted_data": 0,
		"num_subtasks": j.Parallelism(), "num_acknowledged_subtasks": j.Parallelism(),
		"summary": map[string]any{
			"checkpointed_size": zero, "state_size": zero, "end_to_end_duration": zero, "start_delay": zero,
			"checkpoint_duration": map[string]any{"sync": zero, "async": zero},
			"alignment":           map[string]any{"buffered": zero, "processed": zero, "persisted": zero, "duration": zero},
		},
		"subtasks": subtasks,
	}, nil
}

// logURL fills a history server log URL pattern (<jobid>, <tmid>).
func logURL(c *fakeflink.Cluster, key string, r *http.Request) (int, any, error) {
	pattern := configValue(c, key)
	if pattern == "" {
		return http.StatusInternalServerError, errorBody{Errors: []string{
			"java.util.concurrent.TimeoutException", "TimeoutException: no log URL pattern (" + key + ") is configured",
		}}, nil
	}
	url := strings.ReplaceAll(pattern, "<jobid>", r.PathValue("jobid"))
	if tm := r.PathValue("taskmanagerid"); tm != "" {
		url = strings.ReplaceAll(url, "<tmid>", tm)
	}
	return http.StatusOK, map[string]string{"url": url}, nil
}
