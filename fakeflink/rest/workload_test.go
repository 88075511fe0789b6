package rest_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A job with a workload serves its model over Flink's endpoints: a vertex per entry of its
// chain, fed by key, and the metrics the job autoscaler reads under Flink's names.
func TestWorkloadOverREST(t *testing.T) {
	router, _ := loadRouter(t)
	v := &validator{t: t, router: router, seen: map[string]bool{}, used: map[int]bool{}}
	w := newWorld(t)
	app := w.startApp(t, "wl", conf(
		"fakeflink.workload.input", "constant:1500", "fakeflink.workload.capacities", "1000,500,2000",
		"fakeflink.workload.restart-time", "0s",
	))
	w.advance(30*time.Second, app)
	api := w.client(app, v)
	job := app.Jobs()[0].ID

	var details struct {
		Vertices []struct {
			ID             string `json:"id"`
			Name           string `json:"name"`
			Parallelism    int    `json:"parallelism"`
			MaxParallelism int    `json:"maxParallelism"`
			Metrics        struct {
				AccumulatedBusy float64 `json:"accumulated-busy-time"`
			} `json:"metrics"`
		} `json:"vertices"`
		Plan struct {
			Nodes []struct {
				Inputs []struct {
					ID           string `json:"id"`
					ShipStrategy string `json:"ship_strategy"`
				} `json:"inputs"`
			} `json:"nodes"`
		} `json:"plan"`
	}
	api.decode(t, api.expect(t, "GET", "/jobs/"+job, nil, 200), &details)
	var names []string
	for _, vx := range details.Vertices {
		names = append(names, vx.Name)
	}
	if diff := cmp.Diff([]string{"Source: fake-source", "Map 1", "Sink: fake-sink"}, names); diff != "" {
		t.Fatalf("vertices (-want +got):\n%s", diff)
	}
	// The map has processed 28 s × 1,000 records at 500 a subtask-second: 56 s of busy time.
	if got := details.Vertices[1].Metrics.AccumulatedBusy; got != 56000 {
		t.Errorf("the map's accumulated busy time %v ms, want 56000", got)
	}
	if in := details.Plan.Nodes[2].Inputs; len(in) != 1 || in[0].ID != details.Vertices[1].ID || in[0].ShipStrategy != "HASH" {
		t.Errorf("sink's inputs %+v, want the map by key", in)
	}

	source, mapper := "/jobs/"+job+"/vertices/"+details.Vertices[0].ID, "/jobs/"+job+"/vertices/"+details.Vertices[1].ID
	var listed []map[string]string
	api.decode(t, api.expect(t, "GET", source+"/subtasks/metrics", nil, 200), &listed)
	want := map[string]bool{"Source__fake-source.pendingRecords": false, "Source__fake-source.numRecordsInPerSecond": false, "busyTimeMsPerSecond": false}
	for _, m := range listed {
		if _, ok := want[m["id"]]; ok {
			want[m["id"]] = true
		}
	}
	for name, seen := range want {
		if !seen {
			t.Errorf("the source does not list %s", name)
		}
	}
	// Parallelism 2: the map processes 1,000 records/s, the bottleneck of 1,500 arriving.
	var got []map[string]any
	api.decode(t, api.expect(t, "GET", mapper+"/subtasks/metrics?get=busyTimeMsPerSecond,numRecordsInPerSecond&agg=max,sum", nil, 200), &got)
	wantValues := []map[string]any{
		{"id": "busyTimeMsPerSecond", "max": 1000.0, "sum": 2000.0},
		{"id": "numRecordsInPerSecond", "max": 500.0, "sum": 1000.0},
	}
	if diff := cmp.Diff(wantValues, got); diff != "" {
		t.Errorf("map metrics (-want +got):\n%s", diff)
	}
	api.decode(t, api.expect(t, "GET", source+"/subtasks/metrics?get=Source__fake-source.pendingRecords,backPressuredTimeMsPerSecond&agg=sum,max", nil, 200), &got)
	wantValues = []map[string]any{
		{"id": "Source__fake-source.pendingRecords", "max": 7000.0, "sum": 14000.0}, // 28 s running × 500 short
		{"id": "backPressuredTimeMsPerSecond", "max": 500.0, "sum": 1000.0},
	}
	if diff := cmp.Diff(wantValues, got); diff != "" {
		t.Errorf("source metrics (-want +got):\n%s", diff)
	}
}
