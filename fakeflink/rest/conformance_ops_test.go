package rest_test

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// exerciseReadEndpoints calls the read-only operations of a running job, its vertices, the
// JobManager, the TaskManagers and the applications, and checks the figures that must agree
// with each other (task counts and parallelism, subtasks and TaskManagers).
func exerciseReadEndpoints(t *testing.T, api *api, session *serverCluster, job string) {
	t.Helper()
	vertex := vertexIDs(t, session, job)[0]
	tm := slices.Sorted(maps.Keys(session.TaskManagers()))[0]
	v := "/jobs/" + job + "/vertices/" + vertex
	for _, p := range []string{
		"/jobs/" + job + "/config", "/jobs/" + job + "/plan", "/jobs/" + job + "/accumulators",
		"/jobs/" + job + "/accumulators?includeSerializedValue=true",
		"/jobs/" + job + "/jobmanager/config", "/jobs/" + job + "/jobmanager/environment",
		"/jobs/" + job + "/jobmanager/log-url", "/jobs/" + job + "/taskmanagers/" + tm + "/log-url",
		"/jobs/" + job + "/rescales/config", "/jobs/" + job + "/rescales/history",
		"/jobs/" + job + "/rescales/overview", "/jobs/" + job + "/rescales/summary",
		"/jobs/" + job + "/checkpoints/details/1/subtasks/" + vertex,
		v, v + "/subtasks/1", v + "/subtasks/1/attempts/0", v + "/subtasks/1/attempts/0/accumulators",
		v + "/subtasks/1/metrics", v + "/subtasks/1/metrics?get=numRecordsOut,busyTimeMsPerSecond",
		v + "/subtasktimes", v + "/taskmanagers", v + "/accumulators", v + "/subtasks/accumulators",
		v + "/backpressure", v + "/watermarks", v + "/metrics", v + "/metrics?get=0.numRecordsOut",
		v + "/jm-operator-metrics", v + "/flamegraph",
		"/jobs/metrics", "/jobs/metrics?get=uptime,numRestarts&jobs=" + job,
		"/jobmanager/environment", "/jobmanager/logs", "/jobmanager/metrics", "/jobmanager/metrics?get=numRunningJobs",
		"/jobmanager/thread-dump",
		"/taskmanagers/metrics", "/taskmanagers/metrics?get=Status.JVM.CPU.Load",
		"/taskmanagers/" + tm, "/taskmanagers/" + tm + "/logs", "/taskmanagers/" + tm + "/metrics",
		"/taskmanagers/" + tm + "/thread-dump",
		"/datasets", "/applications/overview", "/applications/" + job, "/applications/" + job + "/exceptions",
		"/applications/" + job + "/jobmanager/config",
	} {
		api.expect(t, "GET", p, nil, 200)
	}
	// Flink's answers for what does not exist.
	api.expect(t, "GET", v+"/subtasks/9", nil, 404)
	api.expect(t, "GET", "/jobs/"+job+"/vertices/"+strings.Repeat("e", 32), nil, 404)
	api.expect(t, "GET", "/taskmanagers/no-such-taskmanager", nil, 404)
	api.expect(t, "GET", "/jobs/"+job+"/rescales/details/"+strings.Repeat("c", 32), nil, 404)

	// Task counts add up to each vertex's parallelism, and the job's to the sum.
	var details struct {
		Vertices []struct {
			Parallelism int            `json:"parallelism"`
			Tasks       map[string]int `json:"tasks"`
		} `json:"vertices"`
		StatusCounts map[string]int `json:"status-counts"`
	}
	api.decode(t, api.expect(t, "GET", "/jobs/"+job, nil, 200), &details)
	total := 0
	for _, vx := range details.Vertices {
		if got := sum(vx.Tasks); got != vx.Parallelism {
			t.Errorf("vertex of parallelism %d reports %d tasks: %v", vx.Parallelism, got, vx.Tasks)
		}
		total += vx.Parallelism
	}
	if got := sum(details.StatusCounts); got != total {
		t.Errorf("job status-counts add up to %d, want %d (the vertices' tasks)", got, total)
	}
	var vd struct {
		Parallelism int              `json:"parallelism"`
		Subtasks    []map[string]any `json:"subtasks"`
	}
	api.decode(t, api.expect(t, "GET", v, nil, 200), &vd)
	if len(vd.Subtasks) != vd.Parallelism {
		t.Errorf("vertex has %d subtasks, parallelism %d", len(vd.Subtasks), vd.Parallelism)
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, x := range m {
		n += x
	}
	return n
}

// exerciseSessionOperations calls the operations that change something on a session cluster:
// the client heartbeat, rescaling (disabled in Flink), data set deletion, a jar's plan, and an
// application run and cancelled.
func exerciseSessionOperations(t *testing.T, w *restWorld, api *api, session *serverCluster, jarID string) {
	t.Helper()
	var jobs struct {
		Jobs []struct {
			ID string `json:"id"`
		} `json:"jobs"`
	}
	api.decode(t, api.expect(t, "GET", "/jobs", nil, 200), &jobs)
	job := jobs.Jobs[0].ID
	api.expect(t, "PATCH", "/jobs/"+job+"/clientHeartbeat", map[string]any{"expiredTimestamp": w.clock.Now().Add(time.Minute).UnixMilli()}, 202)
	api.expect(t, "PATCH", "/jobs/"+job+"/rescaling?parallelism=3", nil, 503)
	api.expect(t, "GET", "/jobs/"+job+"/rescaling/"+strings.Repeat("3c", 16), nil, 503)

	var del struct {
		RequestID string `json:"request-id"`
	}
	api.decode(t, api.expect(t, "DELETE", "/datasets/"+strings.Repeat("4d", 16), nil, 202), &del)
	api.expect(t, "GET", "/datasets/delete/"+del.RequestID, nil, 200)
	api.expect(t, "GET", "/datasets/delete/"+strings.Repeat("5e", 16), nil, 404)

	var plan struct {
		Plan struct {
			Nodes []struct {
				Parallelism int `json:"parallelism"`
			} `json:"nodes"`
		} `json:"plan"`
	}
	api.decode(t, api.expect(t, "POST", "/jars/"+jarID+"/plan", map[string]any{"entryClass": "org.example.WordCount", "parallelism": 3}, 200), &plan)
	if len(plan.Plan.Nodes) == 0 || plan.Plan.Nodes[0].Parallelism != 3 {
		t.Errorf("plan of a run at parallelism 3: %+v", plan)
	}
	before := len(session.Jobs())
	var app struct {
		ID string `json:"applicationid"`
	}
	data := api.expect(t, "POST", "/jars/"+jarID+"/run-application", map[string]any{"entryClass": "org.example.WordCount", "parallelism": 1}, 202)
	if err := json.Unmarshal(data, &app); err != nil || app.ID == "" {
		t.Fatalf("run-application: %s %v", data, err)
	}
	if len(session.Jobs()) != before+1 {
		t.Errorf("run-application submitted %d jobs, want 1", len(session.Jobs())-before)
	}
	w.advance(2*time.Second, session)
	api.expect(t, "POST", "/applications/"+app.ID+"/cancel", nil, 202)
	w.advance(time.Second, session)
	api.expect(t, "GET", "/applications/"+strings.Repeat("0", 32), nil, 404)
}
