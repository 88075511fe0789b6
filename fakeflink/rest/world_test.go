package rest_test

import (
	"math/rand"
	"net/http/httptest"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/fakeflink/rest"
)

// restWorld serves fakeflink clusters over httptest on one fake clock.
type restWorld struct {
	clock *clocktesting.FakeClock
	store *fakeflink.Store
	ha    *fakeflink.MemoryHA
	rand  *rand.Rand
}

// serverCluster is a cluster and the HTTP server in front of it.
type serverCluster struct {
	*fakeflink.Cluster
	rest *rest.Server
	srv  *httptest.Server
}

func newWorld(t *testing.T) *restWorld {
	t.Helper()
	return &restWorld{
		clock: clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		store: fakeflink.NewStore(), ha: fakeflink.NewMemoryHA(), rand: rand.New(rand.NewSource(7)),
	}
}

func conf(kv ...string) map[string]string {
	c := map[string]string{
		"taskmanager.numberOfTaskSlots": "4", "execution.checkpointing.interval": "5s",
		"state.checkpoints.dir": "file:///cp", "state.savepoints.dir": "file:///sp", "parallelism.default": "2",
	}
	for i := 0; i+1 < len(kv); i += 2 {
		c[kv[i]] = kv[i+1]
	}
	return c
}

func (w *restWorld) start(t *testing.T, spec fakeflink.ClusterSpec) *serverCluster {
	t.Helper()
	c, err := fakeflink.NewCluster(spec, fakeflink.Options{Clock: w.clock, Rand: w.rand, Store: w.store, HA: w.ha})
	if err != nil {
		t.Fatal(err)
	}
	c.RegisterTaskManager(spec.ID+"-taskmanager-1-1", 4)
	if err := c.StartJobManager(); err != nil {
		t.Fatal(err)
	}
	s := rest.NewServer(c)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return &serverCluster{Cluster: c, rest: s, srv: srv}
}

func (w *restWorld) startApp(t *testing.T, id string, cfg map[string]string) *serverCluster {
	t.Helper()
	prog, err := fakeflink.ProgramFromConfig(cfg, "local:///opt/flink/usrlib/job.jar", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return w.start(t, fakeflink.ClusterSpec{ID: id, Config: cfg, Application: &prog})
}

// advance moves the clock in one-second steps, ticking the clusters under their locks.
func (w *restWorld) advance(d time.Duration, clusters ...*serverCluster) {
	for end := w.clock.Now().Add(d); w.clock.Now().Before(end); {
		w.clock.Step(time.Second)
		for _, c := range clusters {
			c.rest.Do(func(c *fakeflink.Cluster) { c.Tick() })
		}
	}
}

// vertexIDs are the ids of a job's vertices, the source first.
func vertexIDs(t *testing.T, c *serverCluster, job string) []string {
	t.Helper()
	j, err := c.Job(job)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, v := range j.Vertices() {
		out = append(out, v.ID)
	}
	return out
}
