package fakeflink

import (
	"math/rand"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// testWorld is a clock, store and HA store shared by the clusters of a test.
type testWorld struct {
	t     *testing.T
	clock *clocktesting.FakeClock
	store *Store
	ha    *MemoryHA
	rand  *rand.Rand
}

func newWorld(t *testing.T) *testWorld {
	t.Helper()
	return &testWorld{
		t: t, clock: clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		store: NewStore(), ha: NewMemoryHA(), rand: rand.New(rand.NewSource(1)),
	}
}

// statefulConf is a configuration with checkpoints every 10s, savepoint and checkpoint
// directories and two slots per TaskManager; extra key/value pairs are added.
func statefulConf(kv ...string) map[string]string {
	c := map[string]string{
		"taskmanager.numberOfTaskSlots":    "2",
		"execution.checkpointing.interval": "10s",
		"state.checkpoints.dir":            "file:///data/checkpoints",
		"state.savepoints.dir":             "file:///data/savepoints",
		"parallelism.default":              "2",
	}
	for i := 0; i+1 < len(kv); i += 2 {
		c[kv[i]] = kv[i+1]
	}
	return c
}

var haKeys = []string{"high-availability.type", "kubernetes", "high-availability.storageDir", "file:///data/ha"}

// app starts an application cluster with one TaskManager and ticks it until the job runs.
func (w *testWorld) app(id string, conf map[string]string) *Cluster {
	w.t.Helper()
	c := w.application(id, conf)
	c.RegisterTaskManager(id+"-tm-1", 2)
	w.start(c)
	return c
}

// bareApp starts an application cluster without any TaskManager.
func (w *testWorld) bareApp(id string, conf map[string]string) *Cluster {
	w.t.Helper()
	c := w.application(id, conf)
	w.start(c)
	return c
}

// application is an application cluster of the image's job jar, not started.
func (w *testWorld) application(id string, conf map[string]string) *Cluster {
	w.t.Helper()
	prog, err := ProgramFromConfig(conf, "local:///job.jar", "", nil)
	if err != nil {
		w.t.Fatal(err)
	}
	return w.cluster(ClusterSpec{ID: id, Config: conf, Application: &prog})
}

func (w *testWorld) start(c *Cluster) {
	w.t.Helper()
	if err := c.StartJobManager(); err != nil {
		w.t.Fatal(err)
	}
}

func (w *testWorld) cluster(spec ClusterSpec) *Cluster {
	w.t.Helper()
	c, err := NewCluster(spec, Options{Clock: w.clock, Rand: w.rand, Store: w.store, HA: w.ha})
	if err != nil {
		w.t.Fatal(err)
	}
	return c
}

// advance moves the clock forward in steps of one second, ticking the clusters.
func (w *testWorld) advance(d time.Duration, clusters ...*Cluster) {
	for end := w.clock.Now().Add(d); w.clock.Now().Before(end); {
		w.clock.Step(time.Second)
		for _, c := range clusters {
			c.Tick()
		}
	}
}

func onlyJob(t *testing.T, c *Cluster) *Job {
	t.Helper()
	jobs := c.Jobs()
	if len(jobs) != 1 {
		t.Fatalf("cluster %s has %d jobs, want 1", c.ID(), len(jobs))
	}
	return jobs[0]
}

func wantStatus(t *testing.T, j *Job, want JobStatus) {
	t.Helper()
	if j.Status != want {
		t.Fatalf("job %s is %s, want %s (failure: %s)", j.ID, j.Status, want, j.FailureCause)
	}
}

// stopWithSavepoint stops the cluster's only job with a savepoint and returns the snapshot.
func (w *testWorld) stopWithSavepoint(c *Cluster) Snapshot {
	w.t.Helper()
	j := onlyJob(w.t, c)
	trigger, err := c.TriggerSavepoint(j.ID, SavepointRequest{Stop: true})
	if err != nil {
		w.t.Fatal(err)
	}
	w.advance(time.Second, c)
	res, err := c.OperationStatus(OpSavepoint, j.ID, trigger)
	if err != nil || !res.Done || res.Failure != "" {
		w.t.Fatalf("savepoint result %+v, %v", res, err)
	}
	snap, ok := w.store.Get(res.Location)
	if !ok {
		w.t.Fatalf("savepoint %s not in the store", res.Location)
	}
	return snap
}

// wantFailed checks that the job FAILED with a failure cause containing cause.
func wantFailed(t *testing.T, j *Job, cause string) {
	t.Helper()
	if j.Status != StatusFailed || !strings.Contains(j.FailureCause, cause) {
		t.Fatalf("job %s is %s with %q, want FAILED with %q", j.ID, j.Status, j.FailureCause, cause)
	}
}
