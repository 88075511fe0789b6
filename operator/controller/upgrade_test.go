package controller_test

import (
	"strings"
	"testing"
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

func setParallelism(p int32) func(*flinkv1beta1.FlinkDeployment) {
	return func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.Parallelism = &p }
}

func TestSavepointUpgradeResumesExactSavepointOffset(t *testing.T) {
	e := newEnv(t)
	e.createRunning(deployment("sp", flinkv1beta1.UpgradeModeSavepoint))
	e.advance("sp", 25*time.Second)

	e.update("sp", setParallelism(4))
	d := e.until("sp", 40, "running generation 2", running(2))

	path := d.Status.JobStatus.UpgradeSavepointPath
	if !strings.HasPrefix(path, "file:///data/sp/savepoint-") {
		t.Fatalf("upgradeSavepointPath %q, want a savepoint", path)
	}
	snap, ok := e.sim.Store.Get(path)
	if !ok {
		t.Fatalf("savepoint %s not in the store", path)
	}
	start := e.lastStart("sp")
	if start.RestorePath != path || start.Offset != snap.Offset || snap.Offset == 0 {
		t.Errorf("new job started from %q at offset %d; want the savepoint %q at its offset %d (> 0)", start.RestorePath, start.Offset, path, snap.Offset)
	}
	if last := d.Status.JobStatus.SavepointInfo.LastSavepoint; last == nil || last.Location != path || last.TriggerType != flinkv1beta1.SnapshotTriggerUpgrade {
		t.Errorf("lastSavepoint %+v", last)
	}
	if got := e.jmGeneration("sp"); got != "2" {
		t.Errorf("JobManager deployment of generation %s, want 2", got)
	}
	if !e.hasEvent("SpecChanged") || !e.hasEvent("job.parallelism") {
		t.Errorf("no SpecChanged event naming job.parallelism: %v", e.events)
	}
}

func TestLastStateUpgradeResumesFromHA(t *testing.T) {
	e := newEnv(t)
	e.create(deployment("ls", flinkv1beta1.UpgradeModeLastState))
	before := e.until("ls", 20, "running", running(1))
	e.advance("ls", 35*time.Second)
	job := e.cluster("ls").Jobs()[0]
	cps := job.Checkpoints()
	latest := cps[len(cps)-1]

	e.update("ls", func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Image = "flink:1.20.1" })
	d := e.until("ls", 40, "running generation 2", running(2))

	start := e.lastStart("ls")
	if start.JobID != before.Status.JobStatus.JobID {
		t.Errorf("last-state recovered job %s, want the same job %s", start.JobID, before.Status.JobStatus.JobID)
	}
	if start.Offset < latest.Offset {
		t.Errorf("recovered at offset %d, older than the latest checkpoint before the upgrade (%d)", start.Offset, latest.Offset)
	}
	if start.RestorePath == "" {
		t.Error("recovery did not restore a checkpoint")
	}
	if d.Status.JobStatus.UpgradeSavepointPath != "" {
		t.Errorf("last-state upgrade recorded a savepoint path %q", d.Status.JobStatus.UpgradeSavepointPath)
	}
}

func TestStatelessUpgradeStartsEmpty(t *testing.T) {
	e := newEnv(t)
	e.createRunning(deployment("sl", flinkv1beta1.UpgradeModeStateless))
	e.advance("sl", 25*time.Second)
	e.update("sl", setParallelism(4))
	e.until("sl", 40, "running generation 2", running(2))
	if start := e.lastStart("sl"); start.Offset != 0 || start.RestorePath != "" {
		t.Errorf("stateless upgrade started at offset %d from %q, want 0 from nothing", start.Offset, start.RestorePath)
	}
}

func TestSuspendAndResume(t *testing.T) {
	cases := map[string]struct {
		mode flinkv1beta1.UpgradeMode
		// wantKeepsState: resume continues from the suspended state.
		wantKeepsState bool
	}{
		"savepoint":  {flinkv1beta1.UpgradeModeSavepoint, true},
		"last-state": {flinkv1beta1.UpgradeModeLastState, true},
		"stateless":  {flinkv1beta1.UpgradeModeStateless, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			e.createRunning(deployment("job", tc.mode))
			e.advance("job", 25*time.Second)

			e.update("job", func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.State = flinkv1beta1.JobStateSuspended })
			d := e.until("job", 40, "suspended", func(d *flinkv1beta1.FlinkDeployment) bool {
				return d.Status.LifecycleState == flinkv1beta1.LifecycleSuspended && d.Status.JobStatus.State == flinkv1beta1.JobStatusSuspended
			})
			if got := e.jmGeneration("job"); got != "missing" {
				t.Fatalf("a suspended job still has a JobManager (generation %s)", got)
			}
			if tc.mode == flinkv1beta1.UpgradeModeSavepoint && d.Status.JobStatus.UpgradeSavepointPath == "" {
				t.Error("suspend with savepoint recorded no savepoint path")
			}
			stored := e.sim.Store.List("file:///data/")
			var newest int64
			for _, s := range stored {
				newest = max(newest, s.Offset)
			}

			e.update("job", func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.State = flinkv1beta1.JobStateRunning })
			e.until("job", 40, "running again", running(3))
			start := e.lastStart("job")
			if tc.wantKeepsState && (start.Offset != newest || newest == 0) {
				t.Errorf("resumed at offset %d, want the newest snapshot's %d", start.Offset, newest)
			}
			if !tc.wantKeepsState && start.Offset != 0 {
				t.Errorf("stateless resume at offset %d, want 0", start.Offset)
			}
		})
	}
}
