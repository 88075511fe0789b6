package rest

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/flinkop/flinkop/fakeflink"
)

func (s *Server) jobRoutes() {
	s.handle("GET /jobs", func(c *fakeflink.Cluster, _ *http.Request) (int, any, error) {
		out := []map[string]any{}
		for _, j := range c.Jobs() {
			out = append(out, map[string]any{"id": j.ID, "status": j.Status})
		}
		return http.StatusOK, map[string]any{"jobs": out}, nil
	})
	s.handle("GET /jobs/overview", func(c *fakeflink.Cluster, _ *http.Request) (int, any, error) {
		out := []map[string]any{}
		for _, j := range c.Jobs() {
			out = append(out, jobDetails(c, j))
		}
		return http.StatusOK, map[string]any{"jobs": out}, nil
	})
	s.handle("GET /jobs/{jobid}", withJob(func(c *fakeflink.Cluster, j *fakeflink.Job, _ *http.Request) (int, any, error) {
		return http.StatusOK, jobDetailsInfo(c, j), nil
	}))
	s.handle("GET /jobs/{jobid}/status", withJob(func(_ *fakeflink.Cluster, j *fakeflink.Job, _ *http.Request) (int, any, error) {
		return http.StatusOK, map[string]any{"status": j.Status}, nil
	}))
	s.handle("GET /jobs/{jobid}/exceptions", withJob(func(_ *fakeflink.Cluster, j *fakeflink.Job, _ *http.Request) (int, any, error) {
		entries := []map[string]any{}
		for i := len(j.Exceptions) - 1; i >= 0; i-- {
			e := j.Exceptions[i]
			entries = append(entries, map[string]any{
				"exceptionName": e.Name, "stacktrace": e.StackTrace, "timestamp": e.Time.UnixMilli(),
				"failureLabels": map[string]string{}, "concurrentExceptions": []any{},
			})
		}
		return http.StatusOK, map[string]any{"exceptionHistory": map[string]any{"entries": entries, "truncated": false}}, nil
	}))
	s.handle("GET /jobs/{jobid}/execution-result", withJob(func(_ *fakeflink.Cluster, j *fakeflink.Job, _ *http.Request) (int, any, error) {
		if !j.Status.IsGloballyTerminal() {
			return http.StatusOK, map[string]any{"status": map[string]string{"id": "IN_PROGRESS"}}, nil
		}
		result := map[string]any{
			"id": j.ID, "name": j.Program.Name, "application-status": applicationStatus(j.Status),
			"accumulator-results": map[string]any{}, "net-runtime": j.EndTime.Sub(j.StartTime).Milliseconds(),
			"start-time": j.StartTime.UnixMilli(), "end-time": j.EndTime.UnixMilli(),
		}
		if j.Status == fakeflink.StatusFailed {
			result["failure-cause"] = serializedThrowable("org.apache.flink.runtime.JobException", j.FailureCause)
		}
		return http.StatusOK, map[string]any{"status": map[string]string{"id": "COMPLETED"}, "job-execution-result": result}, nil
	}))
	s.handle("PATCH /jobs/{jobid}", func(c *fakeflink.Cluster, r *http.Request) (int, any, error) {
		mode := strings.ToUpper(r.URL.Query().Get("mode"))
		switch mode {
		case "", "CANCEL":
		case "STOP":
			return http.StatusPermanentRedirect, map[string]any{"errors": []string{
				`The termination mode "stop" has been removed. For an ungraceful shutdown, please use "cancel" instead. For a graceful shutdown, please use "jobs/:jobId/stop" instead.`,
			}}, nil
		default:
			return 0, nil, badRequest("TerminationModeQueryParameter", fmt.Errorf("unknown termination mode %q", mode))
		}
		if err := c.CancelJob(r.PathValue("jobid")); err != nil {
			return 0, nil, err
		}
		return http.StatusAccepted, map[string]any{}, nil
	})
}

// withJob resolves the {jobid} path value or answers Flink's 404.
func withJob(h func(c *fakeflink.Cluster, j *fakeflink.Job, r *http.Request) (int, any, error)) handlerFunc {
	return func(c *fakeflink.Cluster, r *http.Request) (int, any, error) {
		j, err := c.Job(r.PathValue("jobid"))
		if err != nil {
			return 0, nil, err
		}
		return h(c, j, r)
	}
}

func applicationStatus(s fakeflink.JobStatus) string {
	switch s {
	case fakeflink.StatusFinished:
		return "SUCCEEDED"
	case fakeflink.StatusFailed:
		return "FAILED"
	case fakeflink.StatusCanceled:
		return "CANCELED"
	}
	return "UNKNOWN"
}

func endMillis(j *fakeflink.Job) int64 {
	if j.EndTime.IsZero() {
		return -1
	}
	return j.EndTime.UnixMilli()
}

func duration(c *fakeflink.Cluster, j *fakeflink.Job) int64 {
	end := c.Now()
	if !j.EndTime.IsZero() {
		end = j.EndTime
	}
	return end.Sub(j.StartTime).Milliseconds()
}

// executionState is the state the job's tasks are in.
func executionState(s fakeflink.JobStatus) string {
	switch s {
	case fakeflink.StatusRunning, fakeflink.StatusFailing:
		return "RUNNING"
	case fakeflink.StatusFinished:
		return "FINISHED"
	case fakeflink.StatusCanceled, fakeflink.StatusSuspended:
		return "CANCELED"
	case fakeflink.StatusCancelling:
		return "CANCELING"
	case fakeflink.StatusFailed:
		return "FAILED"
	case fakeflink.StatusInitializing:
		return "INITIALIZING"
	}
	return "CREATED"
}

var executionStates = []string{"CREATED", "SCHEDULED", "DEPLOYING", "RUNNING", "FINISHED", "CANCELING", "CANCELED", "FAILED", "RECONCILING", "INITIALIZING"}

// taskCounts counts tasks by execution state: n tasks, all in the job's state. A vertex has
// as many tasks as its parallelism; the job has the tasks of both vertices.
func taskCounts(j *fakeflink.Job, n int, lower bool) map[string]int {
	out := map[string]int{}
	for _, st := range executionStates {
		k := st
		if lower {
			k = strings.ToLower(st)
		}
		out[k] = 0
	}
	k := executionState(j.Status)
	if lower {
		k = strings.ToLower(k)
		out["total"] = n
	}
	out[k] = n
	return out
}

// jobDetails is one entry of /jobs/overview (lower-case task keys plus "total").
func jobDetails(c *fakeflink.Cluster, j *fakeflink.Job) map[string]any {
	return map[string]any{
		"jid": j.ID, "name": j.Program.Name, "state": j.Status, "start-time": j.StartTime.UnixMilli(),
		"end-time": endMillis(j), "duration": duration(c, j), "last-modification": j.LastModification.UnixMilli(),
		"tasks": taskCounts(j, j.Tasks(), true), "pending-operators": 0,
	}
}

func jobType(j *fakeflink.Job) string {
	if j.Program.Records > 0 {
		return "BATCH"
	}
	return "STREAMING"
}

// jobDetailsInfo is GET /jobs/:jobid.
func jobDetailsInfo(c *fakeflink.Cluster, j *fakeflink.Job) map[string]any {
	timestamps := map[string]int64{}
	for _, st := range fakeflink.AllStatuses {
		timestamps[string(st)] = 0
		if t, ok := j.Timestamps[st]; ok {
			timestamps[string(st)] = t.UnixMilli()
		}
	}
	vs := j.Vertices()
	offset := j.Offset(c.Now())
	var vertices []map[string]any
	for i, v := range vs {
		read, write := offset, offset
		if i == 0 {
			read = 0
		}
		if i == len(vs)-1 {
			write = 0
		}
		vertices = append(vertices, map[string]any{
			"id": v.ID, "slotSharingGroupId": j.ID[:16] + "0000000000000001", "name": v.Name,
			"maxParallelism": v.MaxParallelism, "parallelism": v.Parallelism, "status": executionState(j.Status),
			"start-time": j.StartTime.UnixMilli(), "end-time": endMillis(j), "duration": duration(c, j),
			"tasks": taskCounts(j, v.Parallelism, false),
			"metrics": map[string]any{
				"read-bytes": read * 8, "read-bytes-complete": true, "write-bytes": write * 8, "write-bytes-complete": true,
				"read-records": read, "read-records-complete": true, "write-records": write, "write-records-complete": true,
				"accumulated-backpressured-time": 0, "accumulated-idle-time": 0, "accumulated-busy-time": j.AccumulatedBusyMs(i, c.Now()),
			},
		})
	}
	return map[string]any{
		"jid": j.ID, "name": j.Program.Name, "isStoppable": false, "state": j.Status,
		"start-time": j.StartTime.UnixMilli(), "end-time": endMillis(j), "duration": duration(c, j),
		"maxParallelism": -1, "now": c.Now().UnixMilli(), "timestamps": timestamps, "job-type": jobType(j),
		"status-counts": taskCounts(j, j.Tasks(), false), "pending-operators": 0,
		"plan":     jobPlan(j),
		"vertices": vertices,
	}
}
