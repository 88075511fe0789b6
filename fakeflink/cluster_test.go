package fakeflink

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestApplicationJobRunsAndCheckpoints(t *testing.T) {
	w := newWorld(t)
	c := w.app("app", statefulConf())
	j := onlyJob(t, c)
	wantStatus(t, j, StatusInitializing)

	w.advance(2*time.Second, c)
	wantStatus(t, j, StatusRunning)
	start := w.clock.Now()

	w.advance(35*time.Second, c)
	if got, want := j.Offset(w.clock.Now()), int64(35*100); got != want {
		t.Errorf("offset after 35s at 100 records/s = %d, want %d", got, want)
	}
	cps := j.Checkpoints()
	if len(cps) != 3 {
		t.Fatalf("%d checkpoints after 35s with a 10s interval, want 3", len(cps))
	}
	for i, cp := range cps {
		wantTime := start.Add(time.Duration(i+1) * 10 * time.Second)
		if !cp.Time.Equal(wantTime) || cp.Offset != int64(i+1)*1000 {
			t.Errorf("checkpoint %d at %v with offset %d, want %v and %d", cp.ID, cp.Time, cp.Offset, wantTime, (i+1)*1000)
		}
	}
	// state.checkpoints.num-retained defaults to 1: only the newest stays in the store.
	if files := w.store.List("file:///data/checkpoints/"); len(files) != 1 || files[0].ID != 3 {
		t.Errorf("store holds %v, want only chk-3", files)
	}
}

func TestJobWaitsForSlots(t *testing.T) {
	w := newWorld(t)
	prog, _ := ProgramFromConfig(statefulConf("parallelism.default", "4"), "local:///job.jar", "", nil)
	c := w.cluster(ClusterSpec{ID: "slots", Config: statefulConf(), Application: &prog})
	c.RegisterTaskManager("tm-1", 2)
	_ = c.StartJobManager()
	w.advance(5*time.Second, c)
	j := onlyJob(t, c)
	wantStatus(t, j, StatusCreated)
	c.RegisterTaskManager("tm-2", 2)
	w.advance(time.Second, c)
	wantStatus(t, j, StatusRunning)
}

// TestAdaptiveSchedulerRunsWithTheSlotsThereAre: on the adaptive scheduler a job asking for 4
// slots where 2 are free waits the stabilization timeout, then runs with 2 subtasks per
// vertex while its resource requirements still ask for 4, and scales up when a TaskManager
// joins; with no slot at all it waits in CREATED.
func TestAdaptiveSchedulerRunsWithTheSlotsThereAre(t *testing.T) {
	w := newWorld(t)
	c := w.bareApp("adaptive", statefulConf("parallelism.default", "4", "jobmanager.scheduler", "adaptive"))
	w.advance(5*time.Second, c)
	j := onlyJob(t, c)
	wantStatus(t, j, StatusCreated) // no TaskManager yet
	c.RegisterTaskManager("tm-1", 2)
	w.advance(5*time.Second, c)
	wantStatus(t, j, StatusCreated) // waits the stabilization timeout for more
	w.advance(AdaptiveStabilization, c)
	wantStatus(t, j, StatusRunning)
	if j.Parallelism() != 2 || c.UsedSlots() != 2 {
		t.Errorf("runs with parallelism %d holding %d slots, want 2 and 2", j.Parallelism(), c.UsedSlots())
	}
	for _, v := range j.Vertices() {
		if v.Parallelism != 2 {
			t.Errorf("vertex %s runs %d subtasks, want 2", v.Name, v.Parallelism)
		}
	}
	req, err := c.ResourceRequirements(j.ID)
	if err != nil {
		t.Fatal(err)
	}
	for id, b := range req {
		if b != [2]int{1, 4} {
			t.Errorf("vertex %s requirements %v, want [1 4]", id, b)
		}
	}
	c.RegisterTaskManager("tm-2", 2) // new slots: the job scales up to what it asks for
	w.advance(2*time.Second, c)
	wantStatus(t, j, StatusRunning)
	if j.Parallelism() != 4 {
		t.Errorf("after a TaskManager joined the job runs with parallelism %d, want 4", j.Parallelism())
	}
}

func TestStopWithSavepointThenRestoreResumesExactOffset(t *testing.T) {
	w := newWorld(t)
	c := w.app("sp", statefulConf())
	w.advance(17*time.Second, c)
	j := onlyJob(t, c)
	snap := w.stopWithSavepoint(c)
	wantStatus(t, j, StatusFinished)
	if snap.Offset != j.Offset(w.clock.Now()) || snap.Offset != 1600 {
		t.Errorf("savepoint offset %d, job offset %d, want both 1600", snap.Offset, j.Offset(w.clock.Now()))
	}

	c2 := w.app("sp2", statefulConf("execution.savepoint.path", snap.Path))
	w.advance(2*time.Second, c2)
	j2 := onlyJob(t, c2)
	wantStatus(t, j2, StatusRunning)
	if got := j2.Offset(w.clock.Now()); got != snap.Offset {
		t.Errorf("restored job starts at offset %d, want the savepoint's %d", got, snap.Offset)
	}
	if starts := c2.Starts(); len(starts) != 1 || starts[0].RestorePath != snap.Path || starts[0].Offset != snap.Offset {
		t.Errorf("start log %+v", starts)
	}
}

func TestRestoreFromMissingPathFailsTheJob(t *testing.T) {
	w := newWorld(t)
	c := w.app("missing", statefulConf("execution.savepoint.path", "file:///data/savepoints/gone"))
	wantFailed(t, onlyJob(t, c), "Cannot find checkpoint or savepoint")
}

func TestHARecoveryAfterJobManagerCrash(t *testing.T) {
	w := newWorld(t)
	conf := statefulConf(haKeys...)
	c := w.app("ha", conf)
	w.advance(25*time.Second, c)
	j := onlyJob(t, c)
	jobID := j.ID
	latest := j.Checkpoints()[len(j.Checkpoints())-1]

	c.CrashJobManager()
	if c.Up() || len(c.Jobs()) != 0 {
		t.Fatal("a crashed JobManager still has jobs")
	}
	w.advance(10*time.Second, c) // nothing happens while it is down
	if err := c.StartJobManager(); err != nil {
		t.Fatal(err)
	}
	w.advance(2*time.Second, c)
	j2 := onlyJob(t, c)
	wantStatus(t, j2, StatusRunning)
	if j2.ID != jobID {
		t.Errorf("recovered job id %s, want the same id %s", j2.ID, jobID)
	}
	if got := j2.Offset(w.clock.Now()); got != latest.Offset {
		t.Errorf("recovered at offset %d, want the latest checkpoint's %d", got, latest.Offset)
	}
}

func TestWithoutHAJobManagerCrashStartsFromConfiguration(t *testing.T) {
	w := newWorld(t)
	c := w.app("noha", statefulConf())
	w.advance(25*time.Second, c)
	c.CrashJobManager()
	_ = c.StartJobManager()
	w.advance(2*time.Second, c)
	if got := onlyJob(t, c).Offset(w.clock.Now()); got != 0 {
		t.Errorf("without HA a restarted application starts from offset %d, want 0 (state lost)", got)
	}
}

func TestGloballyTerminalJobDropsHAMetadata(t *testing.T) {
	w := newWorld(t)
	c := w.app("drop", statefulConf(haKeys...))
	w.advance(12*time.Second, c)
	if len(w.ha.Clusters()) != 1 {
		t.Fatalf("HA clusters %v, want one", w.ha.Clusters())
	}
	if err := c.CancelJob(onlyJob(t, c).ID); err != nil {
		t.Fatal(err)
	}
	w.advance(time.Second, c)
	wantStatus(t, onlyJob(t, c), StatusCanceled)
	if len(w.ha.Clusters()) != 0 {
		t.Errorf("HA metadata kept after cancel: %v", w.ha.Clusters())
	}
	if err := c.CancelJob(onlyJob(t, c).ID); KindOf(err) != KindConflict {
		t.Errorf("cancelling a canceled job: %v, want a conflict", err)
	}
}

func TestSavepointFaults(t *testing.T) {
	w := newWorld(t)
	c := w.app("faulty", statefulConf())
	w.advance(3*time.Second, c)
	j := onlyJob(t, c)

	c.FailNextSavepoints(1)
	failed, _ := c.TriggerSavepoint(j.ID, SavepointRequest{})
	w.advance(time.Second, c)
	if res, _ := c.OperationStatus(OpSavepoint, j.ID, failed); !res.Done || !strings.Contains(res.Failure, "injected") {
		t.Errorf("failing savepoint result %+v", res)
	}

	c.HangSavepoints(true)
	hung, _ := c.TriggerSavepoint(j.ID, SavepointRequest{})
	w.advance(time.Minute, c)
	if res, _ := c.OperationStatus(OpSavepoint, j.ID, hung); res.Done {
		t.Errorf("a hanging savepoint completed: %+v", res)
	}
	c.HangSavepoints(false)
	w.advance(time.Second, c)
	if res, _ := c.OperationStatus(OpSavepoint, j.ID, hung); !res.Done || res.Location == "" {
		t.Errorf("savepoint after the hang ended: %+v", res)
	}
	wantStatus(t, j, StatusRunning)
}

func TestTriggerIsIdempotentAndResultsExpire(t *testing.T) {
	w := newWorld(t)
	c := w.app("idem", statefulConf())
	w.advance(3*time.Second, c)
	j := onlyJob(t, c)
	id := strings.Repeat("ab", 16)
	first, _ := c.TriggerSavepoint(j.ID, SavepointRequest{TriggerID: id})
	second, _ := c.TriggerSavepoint(j.ID, SavepointRequest{TriggerID: id})
	if first != id || second != id {
		t.Fatalf("trigger ids %s, %s; want %s twice", first, second, id)
	}
	w.advance(time.Second, c)
	if n := len(j.Checkpoints()); n != 1 {
		t.Errorf("%d snapshots after one idempotent trigger, want 1", n)
	}
	w.advance(5*time.Minute, c)
	if _, err := c.OperationStatus(OpSavepoint, j.ID, id); KindOf(err) != KindNotFound {
		t.Errorf("result after 5 minutes: %v, want NotFound", err)
	}
}

func TestMissingSavepointDirectoryIsABadRequest(t *testing.T) {
	w := newWorld(t)
	c := w.app("nodir", map[string]string{"taskmanager.numberOfTaskSlots": "2"})
	w.advance(3*time.Second, c)
	_, err := c.TriggerSavepoint(onlyJob(t, c).ID, SavepointRequest{})
	if KindOf(err) != KindBadRequest || !strings.Contains(err.Error(), "[target-directory] must be provided") {
		t.Errorf("error %v", err)
	}
}

func TestRestartStrategy(t *testing.T) {
	w := newWorld(t)
	c := w.app("restart", statefulConf())
	w.advance(15*time.Second, c)
	j := onlyJob(t, c)
	if err := c.FailJob(j.ID, "boom"); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, j, StatusRestarting)
	w.advance(time.Second, c)
	wantStatus(t, j, StatusRunning)
	if got := j.Offset(w.clock.Now()); got != 1000 {
		t.Errorf("restarted at offset %d, want the latest checkpoint's 1000", got)
	}
	cps := j.Checkpoints()
	want := []Failover{{At: w.clock.Now(), RestoredFrom: cps[len(cps)-1].Time, Offset: 1000}}
	if diff := cmp.Diff(want, j.Failovers()); diff != "" {
		t.Errorf("failovers (-want +got):\n%s", diff)
	}

	c2 := w.app("norestart", statefulConf("restart-strategy.type", "none"))
	w.advance(3*time.Second, c2)
	j2 := onlyJob(t, c2)
	_ = c2.FailJob(j2.ID, "boom")
	wantStatus(t, j2, StatusFailed)
}

func TestTaskManagerLossFailsOver(t *testing.T) {
	w := newWorld(t)
	c := w.app("tmloss", statefulConf())
	w.advance(12*time.Second, c)
	j := onlyJob(t, c)
	c.RemoveTaskManager("tmloss-tm-1")
	wantStatus(t, j, StatusRestarting)
	w.advance(3*time.Second, c)
	wantStatus(t, j, StatusCreated)
	c.RegisterTaskManager("tmloss-tm-2", 2)
	w.advance(time.Second, c)
	wantStatus(t, j, StatusRunning)
}

func TestBoundedJobFinishes(t *testing.T) {
	w := newWorld(t)
	c := w.app("batch", statefulConf("execution.runtime-mode", "BATCH", KeyRecords, "500"))
	w.advance(10*time.Second, c)
	j := onlyJob(t, c)
	wantStatus(t, j, StatusFinished)
	if got := j.Offset(w.clock.Now()); got != 500 {
		t.Errorf("finished at offset %d, want 500", got)
	}
}

// sessionWithJar is a running stateful session cluster with four slots and job.jar uploaded.
func sessionWithJar(t *testing.T) (*testWorld, *Cluster, Jar) {
	t.Helper()
	w := newWorld(t)
	c := w.cluster(ClusterSpec{ID: "session", Config: statefulConf()})
	c.RegisterTaskManager("tm", 4)
	_ = c.StartJobManager()
	jar, err := c.UploadJar("job.jar", []byte("PK"))
	if err != nil {
		t.Fatal(err)
	}
	return w, c, jar
}

func TestSessionJarRunAndDuplicateJobID(t *testing.T) {
	_, c, jar := sessionWithJar(t)
	id := strings.Repeat("0f", 16)
	if got, err := c.RunJar(jar.ID, RunRequest{JobID: id, Parallelism: 2}); err != nil || got != id {
		t.Fatalf("RunJar = %s, %v", got, err)
	}
	if _, err := c.RunJar(jar.ID, RunRequest{JobID: id}); KindOf(err) != KindConflict {
		t.Errorf("second run with the same job id: %v, want a conflict", err)
	}
	if _, err := c.UploadJar("job.zip", nil); KindOf(err) != KindBadRequest {
		t.Errorf("non-jar upload: %v", err)
	}
	if err := c.DeleteJar(jar.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RunJar(jar.ID, RunRequest{}); KindOf(err) != KindBadRequest {
		t.Errorf("run of a deleted jar: %v", err)
	}
}

func TestAdaptiveRescale(t *testing.T) {
	w := newWorld(t)
	c := w.cluster(ClusterSpec{ID: "rescale", Config: statefulConf("jobmanager.scheduler", "adaptive")})
	c.RegisterTaskManager("tm", 4)
	_ = c.StartJobManager()
	jar, _ := c.UploadJar("job.jar", nil)
	id, _ := c.RunJar(jar.ID, RunRequest{Parallelism: 2})
	w.advance(12*time.Second, c)
	req := map[string][2]int{}
	job, _ := c.Job(id)
	for _, v := range job.Vertices() {
		req[v.ID] = [2]int{1, 4}
	}
	if err := c.SetResourceRequirements(id, req); err != nil {
		t.Fatal(err)
	}
	j, _ := c.Job(id)
	wantStatus(t, j, StatusRestarting)
	w.advance(time.Second, c)
	wantStatus(t, j, StatusRunning)
	if j.Parallelism() != 4 {
		t.Errorf("parallelism %d after rescale, want 4", j.Parallelism())
	}

	c2 := w.app("default-scheduler", statefulConf())
	w.advance(3*time.Second, c2)
	if err := c2.SetResourceRequirements(onlyJob(t, c2).ID, req); KindOf(err) != KindInternal {
		t.Errorf("rescale with the default scheduler: %v, want an internal error", err)
	}
}

func TestDisposal(t *testing.T) {
	w := newWorld(t)
	c := w.app("dispose", statefulConf())
	w.advance(3*time.Second, c)
	trig, _ := c.TriggerSavepoint(onlyJob(t, c).ID, SavepointRequest{})
	w.advance(time.Second, c)
	res, _ := c.OperationStatus(OpSavepoint, onlyJob(t, c).ID, trig)
	d := c.DisposeSavepoint(res.Location)
	w.advance(time.Second, c)
	if r, _ := c.OperationStatus(OpDisposal, "", d); !r.Done || r.Failure != "" {
		t.Fatalf("disposal result %+v", r)
	}
	if _, ok := w.store.Get(res.Location); ok {
		t.Error("disposed savepoint still in the store")
	}
	again := c.DisposeSavepoint(res.Location)
	w.advance(time.Second, c)
	if r, _ := c.OperationStatus(OpDisposal, "", again); r.Failure == "" {
		t.Error("disposing a missing savepoint succeeded")
	}
}

func TestRetainedCheckpointsAndBoundedHistory(t *testing.T) {
	w := newWorld(t)
	c := w.app("retain", statefulConf("state.checkpoints.num-retained", "3"))
	w.advance(2000*time.Second, c)
	files := w.store.List("file:///data/checkpoints/")
	if len(files) != 3 {
		t.Fatalf("store holds %d checkpoints, want the 3 retained", len(files))
	}
	j := onlyJob(t, c)
	if n := len(j.Checkpoints()); n > maxHistory {
		t.Errorf("job remembers %d snapshots, want at most %d", n, maxHistory)
	}
	newest := j.Checkpoints()[len(j.Checkpoints())-1]
	if _, ok := w.store.Get(newest.Path); !ok {
		t.Errorf("newest checkpoint %s missing from the store", newest.Path)
	}
}

func TestDeletedHAMetadataMeansNoRecovery(t *testing.T) {
	w := newWorld(t)
	c := w.app("lost-ha", statefulConf(haKeys...))
	w.advance(25*time.Second, c)
	w.ha.DeleteCluster("lost-ha")
	c.CrashJobManager()
	_ = c.StartJobManager()
	w.advance(2*time.Second, c)
	j := onlyJob(t, c)
	if got := j.Offset(w.clock.Now()); got != 0 || j.Restored() != nil {
		t.Errorf("with its HA metadata deleted the application restarted at offset %d from %v, want a fresh start", got, j.Restored())
	}
}

func TestFinishedJobIsNotRerunAfterJobManagerRestart(t *testing.T) {
	w := newWorld(t)
	conf := statefulConf(append(haKeys, "$internal.pipeline.job-id", strings.Repeat("ab", 16))...)
	c := w.app("jrs", conf)
	w.advance(5*time.Second, c)
	trigger, _ := c.TriggerSavepoint(onlyJob(t, c).ID, SavepointRequest{Stop: true})
	w.advance(time.Second, c)
	if res, _ := c.OperationStatus(OpSavepoint, onlyJob(t, c).ID, trigger); res.Location == "" {
		t.Fatal("stop-with-savepoint did not complete")
	}
	c.CrashJobManager()
	_ = c.StartJobManager()
	w.advance(5*time.Second, c)
	j := onlyJob(t, c)
	wantStatus(t, j, StatusFinished)
	if n := len(c.Starts()); n != 1 {
		t.Errorf("%d job starts: the finished job ran again", n)
	}
}

func TestApplicationHARecoveryTakesTheNewConfiguration(t *testing.T) {
	w := newWorld(t)
	id := strings.Repeat("cd", 16)
	c := w.app("rescale", statefulConf(append(haKeys, "$internal.pipeline.job-id", id, "parallelism.default", "4")...))
	c.RegisterTaskManager("rescale-tm-2", 2)
	w.advance(15*time.Second, c)
	c.CrashJobManager() // last-state upgrade: the JobManager goes, HA stays

	prog, _ := ProgramFromConfig(statefulConf(append(haKeys, "$internal.pipeline.job-id", id, "parallelism.default", "1")...), "local:///job.jar", "", nil)
	c2 := w.cluster(ClusterSpec{ID: "rescale", Config: statefulConf(append(haKeys, "$internal.pipeline.job-id", id, "parallelism.default", "1")...), Application: &prog})
	c2.RegisterTaskManager("rescale-tm-1", 2)
	_ = c2.StartJobManager()
	w.advance(3*time.Second, c2)
	j := onlyJob(t, c2)
	wantStatus(t, j, StatusRunning)
	if j.ID != id || j.Parallelism() != 1 || j.Restored() == nil {
		t.Errorf("recovered job %s with parallelism %d from %v; want %s, 1, the HA checkpoint", j.ID, j.Parallelism(), j.Restored(), id)
	}
}

// TestJarRunRestartStrategyIsTheJobs: the configuration a jar run submits a job with is the
// job's own over the cluster's, as Flink's JarRunHandler runs the program with both: a job
// submitted with no restarts allowed FAILS on its first failure on a cluster whose own
// strategy (checkpointing on) would restart it, and a job submitted without one restarts.
func TestJarRunRestartStrategyIsTheJobs(t *testing.T) {
	for _, tc := range []struct {
		conf map[string]string
		want JobStatus
	}{
		{map[string]string{"restart-strategy.type": "fixed-delay", "restart-strategy.fixed-delay.attempts": "0"}, StatusFailed},
		{nil, StatusRunning},
	} {
		w, c, jar := sessionWithJar(t)
		id, err := c.RunJar(jar.ID, RunRequest{Parallelism: 2, Config: tc.conf})
		if err != nil {
			t.Fatal(err)
		}
		w.advance(5*time.Second, c)
		if err := c.FailJob(id, "boom"); err != nil {
			t.Fatal(err)
		}
		w.advance(10*time.Second, c)
		j, _ := c.Job(id)
		if j.Status != tc.want {
			t.Errorf("run configuration %v: the job is %s after a failure, want %s", tc.conf, j.Status, tc.want)
		}
	}
}

// LastCheckpointTime is the newest checkpoint's time: a later savepoint does not move it.
func TestLastCheckpointTimeSkipsSavepoints(t *testing.T) {
	w := newWorld(t)
	c := w.app("last", statefulConf())
	j := onlyJob(t, c)
	if !j.LastCheckpointTime().IsZero() {
		t.Fatalf("a new job's last checkpoint is at %v, want none", j.LastCheckpointTime())
	}
	w.advance(2*time.Second, c)
	start := w.clock.Now()
	w.advance(25*time.Second, c) // checkpoints at +10s and +20s
	if _, err := c.TriggerSavepoint(j.ID, SavepointRequest{}); err != nil {
		t.Fatal(err)
	}
	w.advance(time.Second, c)
	cps := j.Checkpoints()
	if last := cps[len(cps)-1]; last.Kind != KindSavepoint {
		t.Fatalf("newest snapshot %+v, want the savepoint", last)
	}
	if got, want := j.LastCheckpointTime(), start.Add(20*time.Second); !got.Equal(want) {
		t.Errorf("last checkpoint at %v, want %v (the savepoint's time is %v)", got, want, cps[len(cps)-1].Time)
	}
}
