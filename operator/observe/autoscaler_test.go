package observe

import (
	"context"
	"math"
	"math/rand"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/fakeflink/rest"
	"github.com/flinkop/flinkop/operator/flink"
)

// The autoscaler's sample of a job on fakeflink's workload model, read over REST as from Flink.
func TestCollectAutoscalerReadsTheJob(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	conf := map[string]string{
		"taskmanager.numberOfTaskSlots": "4", "execution.checkpointing.interval": "10s", "state.checkpoints.dir": "file:///cp",
		"parallelism.default": "2", "fakeflink.workload.input": "constant:1500", "fakeflink.workload.capacities": "1000,500,2000",
		"fakeflink.workload.restart-time": "0s",
	}
	prog, err := fakeflink.ProgramFromConfig(conf, "local:///job.jar", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := fakeflink.NewCluster(fakeflink.ClusterSpec{ID: "wl", Config: conf, Application: &prog},
		fakeflink.Options{Clock: clk, Rand: rand.New(rand.NewSource(1)), Store: fakeflink.NewStore(), HA: fakeflink.NewMemoryHA()})
	if err != nil {
		t.Fatal(err)
	}
	c.RegisterTaskManager("tm", 4)
	if err := c.StartJobManager(); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rest.NewServer(c))
	t.Cleanup(srv.Close)
	for range 30 {
		clk.Step(time.Second)
		c.Tick()
	}
	api := flink.NewClient(srv.URL, flink.WithTimeout(2*time.Second))
	job := c.Jobs()[0]
	got, err := collectAutoscaler(context.Background(), api, job.ID, "MAX")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Topology) != 3 || !got.Topology[0].Source() || !got.Topology[1].Keyed || got.Topology[2].Inputs[0] != got.Topology[1].ID {
		t.Fatalf("topology %+v", got.Topology)
	}
	if !got.RunningSince.Equal(job.Timestamps[fakeflink.StatusRunning]) || !got.Sample.Time.Equal(clk.Now()) {
		t.Errorf("running since %v, sample at %v", got.RunningSince, got.Sample.Time)
	}
	src, mapper := got.Sample.Vertices[got.Topology[0].ID], got.Sample.Vertices[got.Topology[1].ID]
	// The map (2 × 500) is the bottleneck: busy all the time, 1,000 records/s, the backlog
	// growing 500 a second.
	if mapper.Busy != 1000 || math.IsNaN(src.Pending) || src.Pending <= 0 || src.RecordsIn != float64(job.Offset(clk.Now())) || mapper.AccumulatedBusy <= 0 {
		t.Errorf("source %+v, map %+v", src, mapper)
	}
}

// missingBusy is a JobManager whose vertex reports no busy time.
type missingBusy struct{ *stalling }

func (missingBusy) JobDetails(context.Context, string) (*flink.JobDetails, error) {
	return &flink.JobDetails{Vertices: []flink.Vertex{{ID: hexVertex, Parallelism: 1, MaxParallelism: 128}}}, nil
}

func (missingBusy) SubtaskMetrics(context.Context, string, string, []string, []string) ([]flink.AggregatedMetric, error) {
	return []flink.AggregatedMetric{{ID: "numRecordsIn"}, {ID: "numRecordsOut"}}, nil
}

// hexVertex is a job vertex id as Flink writes it.
const hexVertex = "bc764cd8ddf7a0cff126f51c16239658"

// TestCollectAutoscalerRefusesForeignVertexIDs: a vertex id that is not 32 hex digits (a
// JobManager's answer; it goes into the overrides and metric labels) is refused.
func TestCollectAutoscalerRefusesForeignVertexIDs(t *testing.T) {
	for _, id := range []string{"v", hexVertex + "0", "bc764cd8ddf7a0cff126f51c1623965:", strings.Repeat("ab", 16) + ",x:9"} {
		_, err := collectAutoscaler(context.Background(), vertexIDs{&stalling{}, id}, "job", "MAX")
		if err == nil || !strings.Contains(err.Error(), "not a Flink job vertex id") {
			t.Errorf("vertex id %q: error %v, want it refused", id, err)
		}
	}
}

type vertexIDs struct {
	*stalling
	id string
}

func (v vertexIDs) JobDetails(context.Context, string) (*flink.JobDetails, error) {
	return &flink.JobDetails{Vertices: []flink.Vertex{{ID: v.id, Parallelism: 1, MaxParallelism: 128}}}, nil
}

func TestCollectAutoscalerRefusesMissingMetrics(t *testing.T) {
	_, err := collectAutoscaler(context.Background(), missingBusy{&stalling{}}, "job", "MAX")
	if err == nil || !strings.Contains(err.Error(), "no busyTimeMsPerSecond reported") {
		t.Errorf("error %v, want the missing busy time named", err)
	}
}
