package rest

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"

	"github.com/flinkop/flinkop/fakeflink"
)

// serializedThrowable is Flink's SerializedThrowable shape (custom serializer, not the spec's).
func serializedThrowable(class, trace string) map[string]string {
	return map[string]string{
		"class": class, "stack-trace": trace,
		"serialized-throwable": base64.StdEncoding.EncodeToString([]byte(trace)),
	}
}

func triggered(id string) map[string]string { return map[string]string{"request-id": id} }

// asyncResult renders an operation result; operation is null while in progress.
func asyncResult(res fakeflink.OperationResult, done func(fakeflink.OperationResult) map[string]any) map[string]any {
	if !res.Done {
		return map[string]any{"status": map[string]string{"id": "IN_PROGRESS"}, "operation": nil}
	}
	return map[string]any{"status": map[string]string{"id": "COMPLETED"}, "operation": done(res)}
}

func (s *Server) snapshotRoutes() {
	s.savepointRoutes()
	s.checkpointRoutes()
}

func (s *Server) savepointRoutes() {
	s.handle("POST /jobs/{jobid}/savepoints", func(c *fakeflink.Cluster, r *http.Request) (int, any, error) {
		var body struct {
			TargetDirectory string `json:"target-directory"`
			CancelJob       bool   `json:"cancel-job"`
			FormatType      string `json:"formatType"`
			TriggerID       string `json:"triggerId"`
		}
		if err := decodeBody(r, "SavepointTriggerRequestBody", &body); err != nil {
			return 0, nil, err
		}
		id, err := c.TriggerSavepoint(r.PathValue("jobid"), fakeflink.SavepointRequest{
			TargetDirectory: body.TargetDirectory, CancelJob: body.CancelJob, Format: body.FormatType, TriggerID: body.TriggerID,
		})
		if err != nil {
			return 0, nil, err
		}
		return http.StatusAccepted, triggered(id), nil
	})
	s.handle("POST /jobs/{jobid}/stop", func(c *fakeflink.Cluster, r *http.Request) (int, any, error) {
		var body struct {
			TargetDirectory string `json:"targetDirectory"`
			Drain           bool   `json:"drain"`
			FormatType      string `json:"formatType"`
			TriggerID       string `json:"triggerId"`
		}
		if err := decodeBody(r, "StopWithSavepointRequestBody", &body); err != nil {
			return 0, nil, err
		}
		id, err := c.TriggerSavepoint(r.PathValue("jobid"), fakeflink.SavepointRequest{
			TargetDirectory: body.TargetDirectory, Stop: true, Drain: body.Drain, Format: body.FormatType, TriggerID: body.TriggerID,
		})
		if err != nil {
			return 0, nil, err
		}
		return http.StatusAccepted, triggered(id), nil
	})
	s.handle("GET /jobs/{jobid}/savepoints/{triggerid}", func(c *fakeflink.Cluster, r *http.Request) (int, any, error) {
		res, err := c.OperationStatus(fakeflink.OpSavepoint, r.PathValue("jobid"), r.PathValue("triggerid"))
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, asyncResult(res, func(res fakeflink.OperationResult) map[string]any {
			if res.Failure != "" {
				return map[string]any{"failure-cause": serializedThrowable(res.FailureClass, res.Failure)}
			}
			return map[string]any{"location": res.Location}
		}), nil
	})
}

func (s *Server) checkpointRoutes() {
	s.handle("POST /jobs/{jobid}/checkpoints", func(c *fakeflink.Cluster, r *http.Request) (int, any, error) {
		var body struct {
			CheckpointType string `json:"checkpointType"`
			TriggerID      string `json:"triggerId"`
		}
		if err := decodeBody(r, "CheckpointTriggerRequestBody", &body); err != nil {
			return 0, nil, err
		}
		return http.StatusAccepted, triggered(c.TriggerCheckpoint(r.PathValue("jobid"), body.CheckpointType, body.TriggerID)), nil
	})
	s.handle("GET /jobs/{jobid}/checkpoints/{triggerid}", func(c *fakeflink.Cluster, r *http.Request) (int, any, error) {
		res, err := c.OperationStatus(fakeflink.OpCheckpoint, r.PathValue("jobid"), r.PathValue("triggerid"))
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, asyncResult(res, func(res fakeflink.OperationResult) map[string]any {
			if res.Failure != "" { // camelCase here, unlike savepoints
				return map[string]any{"failureCause": serializedThrowable(res.FailureClass, res.Failure)}
			}
			return map[string]any{"checkpointId": res.CheckpointID}
		}), nil
	})
	s.handle("GET /jobs/{jobid}/checkpoints", withJob(func(c *fakeflink.Cluster, j *fakeflink.Job, _ *http.Request) (int, any, error) {
		return http.StatusOK, checkpointingStatistics(c, j), nil
	}))
	s.handle("GET /jobs/{jobid}/checkpoints/config", withJob(func(c *fakeflink.Cluster, _ *fakeflink.Job, _ *http.Request) (int, any, error) {
		st := c.Settings()
		return http.StatusOK, map[string]any{
			"mode": "exactly_once", "interval": st.CheckpointInterval.Milliseconds(), "timeout": 600000,
			"min_pause": 0, "max_concurrent": 1,
			"externalization":       map[string]bool{"enabled": st.CheckpointsDir != "", "delete_on_cancellation": false},
			"state_backend":         "HashMapStateBackend",
			"checkpoint_storage":    "FileSystemCheckpointStorage",
			"unaligned_checkpoints": false, "tolerable_failed_checkpoints": 0, "aligned_checkpoint_timeout": 0,
			"checkpoints_after_tasks_finish": true, "state_changelog_enabled": false,
			"changelog_periodic_materialization_interval": 600000, "changelog_storage": "memory",
		}, nil
	}))
	s.handle("GET /jobs/{jobid}/checkpoints/details/{checkpointid}", withJob(func(_ *fakeflink.Cluster, j *fakeflink.Job, r *http.Request) (int, any, error) {
		id, err := strconv.ParseInt(r.PathValue("checkpointid"), 10, 64)
		if err != nil {
			return 0, nil, badRequest("CheckpointIdPathParameter", err)
		}
		for _, snap := range j.Checkpoints() {
			if snap.ID == id {
				return http.StatusOK, checkpointStatistics(snap), nil
			}
		}
		return 0, nil, &fakeflink.Error{Kind: fakeflink.KindNotFound, Msg: "Could not find checkpointing statistics for checkpoint " + r.PathValue("checkpointid") + "."}
	}))
	s.handle("POST /savepoint-disposal", func(c *fakeflink.Cluster, r *http.Request) (int, any, error) {
		var body struct {
			Path string `json:"savepoint-path"`
		}
		if err := decodeBody(r, "SavepointDisposalRequest", &body); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, triggered(c.DisposeSavepoint(body.Path)), nil
	})
	s.handle("GET /savepoint-disposal/{triggerid}", func(c *fakeflink.Cluster, r *http.Request) (int, any, error) {
		res, err := c.OperationStatus(fakeflink.OpDisposal, "", r.PathValue("triggerid"))
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, asyncResult(res, func(res fakeflink.OperationResult) map[string]any {
			if res.Failure != "" {
				return map[string]any{"failure-cause": serializedThrowable(res.FailureClass, res.Failure)}
			}
			return map[string]any{}
		}), nil
	})
}

// checkpointStatistics is one completed CheckpointStatistics entry.
func checkpointStatistics(snap fakeflink.Snapshot) map[string]any {
	ms := snap.Time.UnixMilli()
	savepoint := snap.Kind == fakeflink.KindSavepoint
	ctype, format := "CHECKPOINT", any(nil)
	if savepoint {
		ctype, format = "SAVEPOINT", snap.Format
	}
	return map[string]any{
		"className": "completed", "id": snap.ID, "status": "COMPLETED", "is_savepoint": savepoint,
		"savepointFormat": format, "checkpoint_type": ctype, "trigger_timestamp": ms, "latest_ack_timestamp": ms,
		"end_to_end_duration": 0, "checkpointed_size": snap.Offset * 8, "state_size": snap.Offset * 8,
		"alignment_buffered": 0, "processed_data": 0, "persisted_data": 0, "num_subtasks": 2,
		"num_acknowledged_subtasks": 2, "tasks": map[string]any{}, "external_path": snap.Path, "discarded": false,
	}
}

// inProgressStatistics is the CheckpointStatistics entry of a savepoint or checkpoint in
// progress (className in_progress, as Flink's PendingCheckpointStats).
func inProgressStatistics(id int64, p fakeflink.InFlight) map[string]any {
	ctype, format := "CHECKPOINT", any(nil)
	if p.Savepoint {
		ctype, format = "SAVEPOINT", p.Format
	}
	ms := p.Triggered.UnixMilli()
	return map[string]any{
		"className": "in_progress", "id": id, "status": "IN_PROGRESS", "is_savepoint": p.Savepoint,
		"savepointFormat": format, "checkpoint_type": ctype, "trigger_timestamp": ms, "latest_ack_timestamp": ms,
		"end_to_end_duration": 0, "checkpointed_size": 0, "state_size": 0, "alignment_buffered": 0,
		"processed_data": 0, "persisted_data": 0, "num_subtasks": 2, "num_acknowledged_subtasks": 0, "tasks": map[string]any{},
	}
}

func checkpointingStatistics(c *fakeflink.Cluster, j *fakeflink.Job) map[string]any {
	snaps := j.Checkpoints()
	latest := map[string]any{"completed": nil, "savepoint": nil, "failed": nil, "restored": nil}
	history := []map[string]any{}
	// Flink reports every pending checkpoint, savepoints included, to its statistics, and its
	// history holds the newest web.checkpoints.history (10) entries by trigger, newest first: a
	// savepoint in progress sits among the completed checkpoints triggered around it, and one
	// running long enough falls out of the history.
	pending := c.InFlight(j.ID)
	completed := 0
	for i, p := len(snaps)-1, len(pending)-1; i >= 0 || p >= 0; {
		if p >= 0 && (i < 0 || !pending[p].Triggered.Before(snaps[i].Time)) {
			if len(history) < 10 {
				history = append(history, inProgressStatistics(int64(len(snaps)+p+1), pending[p]))
			}
			p--
			continue
		}
		s := snaps[i]
		completed++
		key := "completed"
		if s.Kind == fakeflink.KindSavepoint {
			key = "savepoint"
		}
		if latest[key] == nil {
			latest[key] = checkpointStatistics(s)
		}
		if len(history) < 10 {
			history = append(history, checkpointStatistics(s))
		}
		i--
	}
	if r := j.Restored(); r != nil {
		latest["restored"] = map[string]any{
			"id": r.ID, "restore_timestamp": j.StartTime.UnixMilli(), "is_savepoint": r.Kind == fakeflink.KindSavepoint,
			"external_path": r.Path,
		}
	}
	failed, _ := strconv.Atoi(mustMetric(c, j, "numberOfFailedCheckpoints"))
	summary := map[string]any{"min": 0, "max": 0, "avg": 0, "p50": 0.0, "p90": 0.0, "p95": 0.0, "p99": 0.0, "p999": 0.0}
	return map[string]any{
		"counts": map[string]any{
			"restored": boolInt(j.Restored() != nil), "total": completed + failed + len(pending), "in_progress": len(pending),
			"completed": completed, "failed": failed,
		},
		"summary": map[string]any{
			"checkpointed_size": summary, "state_size": summary, "end_to_end_duration": summary,
			"alignment_buffered": summary, "processed_data": summary, "persisted_data": summary,
		},
		"latest":  latest,
		"history": history,
	}
}

func mustMetric(c *fakeflink.Cluster, j *fakeflink.Job, name string) string {
	m, err := c.JobMetrics(j.ID)
	if err != nil {
		return "0"
	}
	return m[name]
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// splitList splits a comma-separated query value, dropping empty items.
func splitList(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
