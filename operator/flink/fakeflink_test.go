package flink_test

import (
	"context"
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

// world runs fakeflink clusters over httptest on one fake clock, shared store and HA store.
type world struct {
	t     *testing.T
	clock *clocktesting.FakeClock
	store *fakeflink.Store
	ha    *fakeflink.MemoryHA
	rand  *rand.Rand
	all   []*rest.Server
}

func newWorld(t *testing.T) *world {
	t.Helper()
	return &world{
		t: t, clock: clocktesting.NewFakeClock(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)),
		store: fakeflink.NewStore(), ha: fakeflink.NewMemoryHA(), rand: rand.New(rand.NewSource(3)),
	}
}

func conf(kv ...string) map[string]string {
	c := map[string]string{
		"taskmanager.numberOfTaskSlots": "2", "parallelism.default": "2", "execution.checkpointing.interval": "10s",
		"state.checkpoints.dir": "file:///data/cp", "state.savepoints.dir": "file:///data/sp",
	}
	for i := 0; i+1 < len(kv); i += 2 {
		c[kv[i]] = kv[i+1]
	}
	return c
}

// start starts a cluster (application when app is true) and returns a client of it.
func (w *world) start(id string, cfg map[string]string, app bool) (*flink.Client, *rest.Server) {
	w.t.Helper()
	spec := fakeflink.ClusterSpec{ID: id, Config: cfg}
	if app {
		prog, err := fakeflink.ProgramFromConfig(cfg, "local:///job.jar", "", nil)
		if err != nil {
			w.t.Fatal(err)
		}
		spec.Application = &prog
	}
	c, err := fakeflink.NewCluster(spec, fakeflink.Options{Clock: w.clock, Rand: w.rand, Store: w.store, HA: w.ha})
	if err != nil {
		w.t.Fatal(err)
	}
	c.RegisterTaskManager(id+"-tm-1", 2)
	if err := c.StartJobManager(); err != nil {
		w.t.Fatal(err)
	}
	s := rest.NewServer(c)
	srv := httptest.NewServer(s)
	w.t.Cleanup(srv.Close)
	w.all = append(w.all, s)
	return flink.NewClient(srv.URL, flink.WithTimeout(2*time.Second)), s
}

func (w *world) advance(d time.Duration) {
	for end := w.clock.Now().Add(d); w.clock.Now().Before(end); {
		w.clock.Step(time.Second)
		for _, s := range w.all {
			s.Do(func(c *fakeflink.Cluster) { c.Tick() })
		}
	}
}

func onlyJob(t *testing.T, c *flink.Client) flink.JobOverview {
	t.Helper()
	jobs, err := c.ListJobs(context.Background())
	if err != nil || len(jobs) != 1 {
		t.Fatalf("ListJobs = %v, %v; want one job", jobs, err)
	}
	return jobs[0]
}

// offset reads the job's state through the REST API: the source's records out.
func offset(t *testing.T, c *flink.Client, jobID string) int64 {
	t.Helper()
	ctx := context.Background()
	d, err := c.JobDetails(ctx, jobID)
	if err != nil {
		t.Fatal(err)
	}
	m, err := c.SubtaskMetrics(ctx, jobID, d.Vertices[0].ID, []string{"numRecordsOut"}, []string{"sum"})
	if err != nil || len(m) != 1 {
		t.Fatalf("SubtaskMetrics = %v, %v", m, err)
	}
	return int64(*m[0].Sum)
}

// waitSavepoint polls a savepoint until it completes.
func (w *world) waitSavepoint(c *flink.Client, jobID, trigger string) *flink.SavepointResult {
	w.t.Helper()
	for range 10 {
		res, err := c.SavepointStatus(context.Background(), jobID, trigger)
		if err != nil {
			w.t.Fatal(err)
		}
		if res.Done {
			return res
		}
		w.advance(time.Second)
	}
	w.t.Fatal("savepoint did not complete in 10 virtual seconds")
	return nil
}

func TestSavepointRoundTrip(t *testing.T) {
	w := newWorld(t)
	c, _ := w.start("rt", conf(), true)
	w.advance(5 * time.Second)
	job := onlyJob(t, c)
	trigger, err := c.TriggerSavepoint(context.Background(), job.ID, flink.SavepointRequest{FormatType: "CANONICAL"})
	if err != nil {
		t.Fatal(err)
	}
	res := w.waitSavepoint(c, job.ID, trigger)
	if res.Failure != nil || !strings.HasPrefix(res.Location, "file:///data/sp/savepoint-") {
		t.Fatalf("savepoint result %+v", res)
	}
	st, err := c.Checkpoints(context.Background(), job.ID)
	if err != nil || st.Latest.Savepoint == nil || st.Latest.Savepoint.ExternalPath != res.Location {
		t.Errorf("latest savepoint in statistics: %+v, %v", st, err)
	}
	if s, _ := c.JobState(context.Background(), job.ID); s != flink.JobRunning {
		t.Errorf("job %s after a plain savepoint, want RUNNING", s)
	}
	disposal, err := c.DisposeSavepoint(context.Background(), res.Location)
	if err != nil {
		t.Fatal(err)
	}
	w.advance(time.Second)
	if done, failure, err := c.DisposalStatus(context.Background(), disposal); err != nil || !done || failure != nil {
		t.Errorf("disposal: done=%v failure=%v err=%v", done, failure, err)
	}
}

func TestStopWithSavepointThenRestoreResumesExactOffset(t *testing.T) {
	w := newWorld(t)
	c, _ := w.start("v1", conf(), true)
	w.advance(23 * time.Second)
	job := onlyJob(t, c)
	trigger, err := c.StopWithSavepoint(context.Background(), job.ID, flink.StopRequest{})
	if err != nil {
		t.Fatal(err)
	}
	res := w.waitSavepoint(c, job.ID, trigger)
	if s, _ := c.JobState(context.Background(), job.ID); s != flink.JobFinished {
		t.Fatalf("job %s after stop-with-savepoint, want FINISHED", s)
	}
	stoppedAt := offset(t, c, job.ID)
	if stoppedAt == 0 {
		t.Fatal("job made no progress")
	}

	c2, _ := w.start("v2", conf("execution.savepoint.path", res.Location), true)
	w.advance(2 * time.Second)
	job2 := onlyJob(t, c2)
	if job2.State != flink.JobRunning {
		t.Fatalf("restored job is %s", job2.State)
	}
	if got := offset(t, c2, job2.ID); got != stoppedAt {
		t.Errorf("restored job at offset %d, want the savepoint's %d", got, stoppedAt)
	}
	st, _ := c2.Checkpoints(context.Background(), job2.ID)
	if st.Latest.Restored == nil || st.Latest.Restored.ExternalPath != res.Location || !st.Latest.Restored.IsSavepoint {
		t.Errorf("restored checkpoint %+v", st.Latest.Restored)
	}
}

func TestHARecoveryAfterJobManagerCrash(t *testing.T) {
	w := newWorld(t)
	c, srv := w.start("ha", conf("high-availability.type", "kubernetes", "high-availability.storageDir", "file:///data/ha"), true)
	w.advance(35 * time.Second)
	job := onlyJob(t, c)
	st, err := c.Checkpoints(context.Background(), job.ID)
	if err != nil || st.Latest.Completed == nil {
		t.Fatalf("no completed checkpoint: %+v, %v", st, err)
	}
	latest := st.Latest.Completed

	srv.Do(func(cl *fakeflink.Cluster) { cl.CrashJobManager() })
	if _, err := c.ListJobs(context.Background()); !flink.IsUnavailable(err) {
		t.Fatalf("a crashed JobManager answered: %v", err)
	}
	srv.Do(func(cl *fakeflink.Cluster) { _ = cl.StartJobManager() })
	w.advance(2 * time.Second)
	recovered := onlyJob(t, c)
	if recovered.ID != job.ID || recovered.State != flink.JobRunning {
		t.Fatalf("recovered job %+v, want %s RUNNING", recovered, job.ID)
	}
	st2, _ := c.Checkpoints(context.Background(), job.ID)
	if st2.Latest.Restored == nil || st2.Latest.Restored.ExternalPath != latest.ExternalPath {
		t.Errorf("recovered from %+v, want the latest checkpoint %s", st2.Latest.Restored, latest.ExternalPath)
	}
	if got, want := offset(t, c, job.ID), int64(3000); got != want {
		t.Errorf("recovered at offset %d, want %d (chk at 30s)", got, want)
	}
}

func TestSessionJarUploadRunCancel(t *testing.T) {
	w := newWorld(t)
	c, _ := w.start("session", conf(), false)
	ctx := context.Background()
	jarID, err := c.UploadJar(ctx, "wordcount.jar", strings.NewReader("PK\x03\x04"), 4)
	if err != nil {
		t.Fatal(err)
	}
	jars, err := c.ListJars(ctx)
	if err != nil || len(jars) != 1 || jars[0].ID != jarID || jars[0].Name != "wordcount.jar" {
		t.Fatalf("ListJars = %+v, %v", jars, err)
	}
	fixed := strings.Repeat("c0", 16)
	jobID, err := c.RunJar(ctx, jarID, flink.RunJarRequest{JobID: fixed, Parallelism: 2, Args: []string{"--in", "x"}})
	if err != nil || jobID != fixed {
		t.Fatalf("RunJar = %s, %v", jobID, err)
	}
	if _, err := c.RunJar(ctx, jarID, flink.RunJarRequest{JobID: fixed}); !flink.IsConflict(err) {
		t.Errorf("second run of the same job id: %v, want a conflict", err)
	}
	w.advance(3 * time.Second)
	if err := c.CancelJob(ctx, jobID); err != nil {
		t.Fatal(err)
	}
	w.advance(time.Second)
	res, err := c.ExecutionResult(ctx, jobID)
	if err != nil || !res.Done || res.ApplicationStatus != "CANCELED" {
		t.Errorf("ExecutionResult = %+v, %v", res, err)
	}
	if err := c.CancelJob(ctx, jobID); !flink.IsConflict(err) {
		t.Errorf("cancelling a canceled job: %v, want a conflict", err)
	}
	if err := c.DeleteJar(ctx, jarID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.JobDetails(ctx, strings.Repeat("0", 32)); !flink.IsNotFound(err) {
		t.Errorf("unknown job: %v, want not found", err)
	}
}

func TestRESTFaults(t *testing.T) {
	w := newWorld(t)
	c, srv := w.start("faults", conf(), true)
	srv.Do(func(cl *fakeflink.Cluster) {
		cl.SetRESTFault(fakeflink.RESTUnavailable, w.clock.Now().Add(time.Minute))
	})
	if _, err := c.Overview(context.Background()); !flink.IsUnavailable(err) {
		t.Errorf("during an outage: %v, want unavailable", err)
	}
	srv.Do(func(cl *fakeflink.Cluster) { cl.SetRESTFault(fakeflink.RESTTimeout, w.clock.Now().Add(time.Minute)) })
	quick := flink.NewClient(c.BaseURL(), flink.WithTimeout(50*time.Millisecond))
	if _, err := quick.Overview(context.Background()); !flink.IsUnavailable(err) {
		t.Errorf("during a timeout fault: %v, want unavailable", err)
	}
	w.advance(time.Minute)
	if ov, err := c.Overview(context.Background()); err != nil || ov.TaskManagers != 1 || ov.SlotsTotal != 2 {
		t.Errorf("after the outage: %+v, %v", ov, err)
	}
}
