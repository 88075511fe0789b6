package decide

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

const (
	sp   = flinkv1beta1.UpgradeModeSavepoint
	ls   = flinkv1beta1.UpgradeModeLastState
	none = flinkv1beta1.UpgradeModeStateless
)

// TestUpgrade covers the upgrade state machine: every upgrade mode against every job state,
// each fallback and each refusal. Cases name the rule they check.
func TestUpgrade(t *testing.T) {
	upgradeTrigger := TriggerID("uid-1", "upgrade", 2)
	cases := map[string]struct {
		in Input
		// wantAction is the action chosen (Kind plus the fields that matter).
		wantAction Action
		// wantError is a substring of status.error ("" for none).
		wantError string
		// wantPath is status.jobStatus.upgradeSavepointPath after the step.
		wantPath string
		// wantRestore is the restore mode recorded in the write-ahead log.
		wantRestore RestoreMode
		// wantEvent is a substring of one event's reason or message.
		wantEvent string
	}{
		"stateless, job RUNNING: cancel first": {
			in:          input(upgrading(none), cluster(1, "RUNNING")),
			wantAction:  Action{Kind: ActCancelJob, JobID: "job-1"},
			wantRestore: RestoreNone, wantEvent: "Cancelling job",
		},
		"stateless, job CANCELLING: wait": {
			in:         input(upgrading(none), cluster(1, "CANCELLING")),
			wantAction: None, wantRestore: RestoreNone,
		},
		"stateless, job CANCELED: delete the cluster and its HA data": {
			in:         input(upgrading(none), cluster(1, "CANCELED")),
			wantAction: Action{Kind: ActDeleteCluster, DeleteHA: true}, wantRestore: RestoreNone,
		},
		"stateless, job FAILED: delete without cancelling": {
			in:         input(upgrading(none), cluster(1, "FAILED")),
			wantAction: Action{Kind: ActDeleteCluster, DeleteHA: true}, wantRestore: RestoreNone, wantError: "Job job-1 failed",
		},
		"stateless, REST unreachable: delete anyway": {
			in:         input(upgrading(none), cluster(1, "RUNNING", unreachable)),
			wantAction: Action{Kind: ActDeleteCluster, DeleteHA: true}, wantRestore: RestoreNone,
		},
		"stateless, cluster gone: deploy from empty state": {
			in:         input(upgrading(none), missing()),
			wantAction: Action{Kind: ActDeploy, Deploy: &Deploy{Generation: 2, JobID: JobIDFor("uid-1", 2, "")}}, wantRestore: RestoreNone,
		},
		"savepoint, job RUNNING: stop with an idempotent savepoint": {
			in:          input(upgrading(sp), cluster(1, "RUNNING")),
			wantAction:  Action{Kind: ActStopWithSavepoint, JobID: "job-1", TriggerID: upgradeTrigger, FormatType: "CANONICAL"},
			wantRestore: RestoreSavepoint, wantEvent: "SavepointTriggered",
		},
		"savepoint, job RUNNING, drain-on-savepoint-deletion: the stop drains it": {
			in:          inputWith(upgrading(sp), cluster(1, "RUNNING"), func(in *Input) { in.Options.DrainOnSavepoint = true }),
			wantAction:  Action{Kind: ActStopWithSavepoint, JobID: "job-1", TriggerID: upgradeTrigger, FormatType: "CANONICAL", Drain: true},
			wantRestore: RestoreSavepoint, wantEvent: "SavepointTriggered",
		},
		"last-state, job RUNNING, last-state.job-cancel.enabled: cancel, then restore its newest checkpoint": {
			in: inputWith(upgrading(ls), cluster(1, "RUNNING", checkpoint("file:///cp/chk-3", now.UnixMilli())),
				func(in *Input) { in.Options.LastStateJobCancel = true }),
			wantAction: None, wantRestore: RestoreSavepoint, wantEvent: "last-state.job-cancel.enabled is true",
		},
		"last-state, job RUNNING with a checkpoint, HA metadata gone: cancel, then restore its newest checkpoint": {
			in:         input(upgrading(ls), cluster(1, "RUNNING", noHA, checkpoint("file:///cp/chk-3", now.UnixMilli()))),
			wantAction: None, wantRestore: RestoreSavepoint, wantEvent: "its HA metadata is gone",
		},
		"savepoint, trigger in progress: wait": {
			in:         input(upgrading(sp, withTrigger(upgradeTrigger, "UPGRADE")), cluster(1, "RUNNING", savepointOp(OperationObservation{}))),
			wantAction: None, wantRestore: RestoreSavepoint,
		},
		"savepoint, a manual savepoint in flight: wait for it before stopping the job": {
			in:         input(upgrading(sp, withTrigger("manual-1", "MANUAL")), cluster(1, "RUNNING", savepointOp(OperationObservation{}))),
			wantAction: None, wantRestore: RestoreSavepoint,
		},
		"savepoint, a manual savepoint in flight and ignore-pending-savepoint: abandon it and stop the job": {
			in: inputWith(upgrading(sp, withTrigger("manual-1", "MANUAL")), cluster(1, "RUNNING", savepointOp(OperationObservation{}), inProgress),
				func(in *Input) { in.Options.IgnorePendingSavepoint = true }),
			wantAction:  Action{Kind: ActStopWithSavepoint, JobID: "job-1", TriggerID: upgradeTrigger, FormatType: "CANONICAL"},
			wantRestore: RestoreSavepoint, wantEvent: "manual-1 was abandoned",
		},
		"stateless, a periodic savepoint in flight: wait for it before cancelling": {
			in:         input(upgrading(none, withTrigger("periodic-1", "PERIODIC")), cluster(1, "RUNNING", savepointOp(OperationObservation{}), inProgress)),
			wantAction: None, wantRestore: RestoreNone,
		},
		"savepoint, Flink takes a savepoint status does not show, ignore-pending-savepoint: stop the job at once": {
			in:          inputWith(upgrading(sp), cluster(1, "RUNNING", inProgress), func(in *Input) { in.Options.IgnorePendingSavepoint = true }),
			wantAction:  Action{Kind: ActStopWithSavepoint, JobID: "job-1", TriggerID: upgradeTrigger, FormatType: "CANONICAL"},
			wantRestore: RestoreSavepoint, wantEvent: "SavepointTriggered",
		},
		"stateless, a periodic savepoint in flight and ignore-pending-savepoint: cancel at once": {
			in: inputWith(upgrading(none, withTrigger("periodic-1", "PERIODIC")), cluster(1, "RUNNING", savepointOp(OperationObservation{}), inProgress),
				func(in *Input) { in.Options.IgnorePendingSavepoint = true }),
			wantAction: Action{Kind: ActCancelJob, JobID: "job-1"}, wantRestore: RestoreNone, wantEvent: "periodic-1 was abandoned",
		},
		"last-state, a periodic savepoint in flight and the REST API down: not held by it": {
			in:         input(upgrading(ls, withTrigger("periodic-1", "PERIODIC")), cluster(1, "RUNNING", unreachable)),
			wantAction: Action{Kind: ActDeleteCluster}, wantRestore: RestoreHA,
		},
		"stateless, a periodic savepoint in flight and the REST API down: delete anyway": {
			in:         input(upgrading(none, withTrigger("periodic-1", "PERIODIC")), cluster(1, "RUNNING", unreachable)),
			wantAction: Action{Kind: ActDeleteCluster, DeleteHA: true}, wantRestore: RestoreNone,
		},
		"last-state, a manual savepoint in flight and ignore-pending-savepoint: delete keeping HA": {
			in: inputWith(upgrading(ls, withTrigger("manual-1", "MANUAL")), cluster(1, "RUNNING", savepointOp(OperationObservation{}), inProgress),
				func(in *Input) { in.Options.IgnorePendingSavepoint = true }),
			wantAction: Action{Kind: ActDeleteCluster}, wantRestore: RestoreHA, wantEvent: "manual-1 was abandoned",
		},
		"savepoint, the manual savepoint completed: recorded before the upgrade goes on": {
			in: input(upgrading(sp, withTrigger("manual-1", "MANUAL")),
				cluster(1, "RUNNING", savepointOp(OperationObservation{Done: true, Location: "file:///sp/savepoint-m"}))),
			wantAction: None, wantRestore: RestoreSavepoint, wantEvent: "SavepointCompleted",
		},
		"savepoint, trigger completed: record the path": {
			in: input(upgrading(sp, withTrigger(upgradeTrigger, "UPGRADE")),
				cluster(1, "FINISHED", savepointOp(OperationObservation{Done: true, Location: "file:///sp/savepoint-1"}))),
			wantAction: None, wantPath: "file:///sp/savepoint-1", wantRestore: RestoreSavepoint, wantEvent: "SavepointCompleted",
		},
		"savepoint, savepoint taken and job FINISHED: delete the cluster": {
			in:         input(upgrading(sp, withUpgradePath("file:///sp/savepoint-1")), cluster(1, "FINISHED")),
			wantAction: Action{Kind: ActDeleteCluster, DeleteHA: true}, wantPath: "file:///sp/savepoint-1", wantRestore: RestoreSavepoint,
		},
		"savepoint, cluster gone: deploy from the savepoint": {
			in:         input(upgrading(sp, withUpgradePath("file:///sp/savepoint-1")), missing()),
			wantAction: Action{Kind: ActDeploy, Deploy: &Deploy{Generation: 2, JobID: JobIDFor("uid-1", 2, ""), RestorePath: "file:///sp/savepoint-1"}},
			wantPath:   "file:///sp/savepoint-1", wantRestore: RestoreSavepoint,
		},
		"savepoint, JobManager gone but the old TaskManagers still seen: delete again, never deploy over them": {
			in:         input(upgrading(sp, withUpgradePath("file:///sp/savepoint-1")), oldTaskManagers()),
			wantAction: Action{Kind: ActDeleteCluster, DeleteHA: true}, wantPath: "file:///sp/savepoint-1", wantRestore: RestoreSavepoint,
		},
		"stateless, JobManager gone but the old TaskManagers still seen: delete again": {
			in:         input(upgrading(none), oldTaskManagers()),
			wantAction: Action{Kind: ActDeleteCluster, DeleteHA: true}, wantRestore: RestoreNone,
		},
		"last-state, JobManager gone but the old TaskManagers still seen: delete again, keeping HA": {
			in:         input(upgrading(ls), oldTaskManagers()),
			wantAction: Action{Kind: ActDeleteCluster}, wantRestore: RestoreHA,
		},
		"job FINISHED by a stop-with-savepoint whose status write was lost: restore the savepoint Flink reports": {
			in: input(upgrading(sp), cluster(1, "FINISHED", checkpoint("file:///cp/job-1/chk-3", now.UnixMilli()), func(o *Observation) {
				o.Job.LatestCheckpoint.ID = 3
				o.Job.LatestSavepoint = &SnapshotRef{Path: "file:///sp/savepoint-4", ID: 4, Timestamp: now.UnixMilli()}
			})),
			wantAction: None, wantPath: "file:///sp/savepoint-4", wantRestore: RestoreSavepoint, wantEvent: "SavepointRecovered",
		},
		"savepoint failed, newer checkpoint: fall back to it": {
			in: input(upgrading(sp, withTrigger(upgradeTrigger, "UPGRADE")),
				cluster(1, "RUNNING", checkpoint("file:///cp/job-1/chk-3", now.UnixMilli()), savepointOp(OperationObservation{Done: true, Failure: "disk full"}))),
			wantAction: None, wantRestore: RestoreSavepoint, wantEvent: "CheckpointFallback",
		},
		"savepoint lost, job RUNNING: stop it with a savepoint again, never refuse": {
			in: input(upgrading(sp, withTrigger(upgradeTrigger, "UPGRADE")),
				cluster(1, "RUNNING", checkpoint("file:///cp/job-1/chk-3", now.UnixMilli()), savepointOp(OperationObservation{Lost: true}))),
			wantAction:  Action{Kind: ActStopWithSavepoint, JobID: "job-1", TriggerID: upgradeTrigger, FormatType: "CANONICAL"},
			wantRestore: RestoreSavepoint, wantEvent: "no longer knows",
		},
		"savepoint lost, no checkpoint, job RUNNING: stop it with a savepoint again": {
			in: input(upgrading(sp, withTrigger(upgradeTrigger, "UPGRADE")),
				cluster(1, "RUNNING", savepointOp(OperationObservation{Lost: true}))),
			wantAction:  Action{Kind: ActStopWithSavepoint, JobID: "job-1", TriggerID: upgradeTrigger, FormatType: "CANONICAL"},
			wantRestore: RestoreSavepoint, wantEvent: "was lost",
		},
		"savepoint lost after it stopped the job: restore the savepoint Flink reports": {
			in: input(upgrading(sp, withTrigger(upgradeTrigger, "UPGRADE")),
				cluster(1, "FINISHED", checkpoint("file:///cp/job-1/chk-3", now.UnixMilli()), savepointOp(OperationObservation{Lost: true}), func(o *Observation) {
					o.Job.LatestCheckpoint.ID = 3
					o.Job.LatestSavepoint = &SnapshotRef{Path: "file:///sp/savepoint-4", ID: 4, Timestamp: now.UnixMilli()}
				})),
			wantAction: None, wantPath: "file:///sp/savepoint-4", wantRestore: RestoreSavepoint, wantEvent: "SavepointRecovered",
		},
		"savepoint failed, no checkpoint: refuse and keep the job": {
			in: input(upgrading(sp, withTrigger(upgradeTrigger, "UPGRADE")),
				cluster(1, "RUNNING", savepointOp(OperationObservation{Done: true, Failure: "disk full"}))),
			wantAction: None, wantError: "upgrade savepoint failed (disk full)", wantRestore: RestoreSavepoint,
		},
		"savepoint failed earlier: stay refused, no new savepoint": {
			in:         input(upgrading(sp, withMeta(func(m *SpecMetadata) { m.SavepointFailed = true })), cluster(1, "RUNNING")),
			wantAction: None, wantError: "upgrade savepoint failed", wantRestore: RestoreSavepoint,
		},
		"checkpoint fallback, job RUNNING: cancel it first": {
			in:         input(upgrading(sp, withMeta(func(m *SpecMetadata) { m.CheckpointFallback = true })), cluster(1, "RUNNING")),
			wantAction: Action{Kind: ActCancelJob, JobID: "job-1"}, wantRestore: RestoreSavepoint,
		},
		"checkpoint fallback, job CANCELED: take the newest checkpoint, read after it ended": {
			in: input(upgrading(sp, withMeta(func(m *SpecMetadata) { m.CheckpointFallback = true })),
				cluster(1, "CANCELED", checkpoint("file:///cp/job-1/chk-4", now.UnixMilli()))),
			wantAction: None, wantPath: "file:///cp/job-1/chk-4", wantRestore: RestoreSavepoint,
		},
		"checkpoint fallback, job CANCELED after a JobManager failover emptied its statistics: the fallback's checkpoint, not an older savepoint": {
			in: input(upgrading(sp, withMeta(func(m *SpecMetadata) {
				m.CheckpointFallback = true
				m.FallbackCheckpoint, m.FallbackCheckpointTime = "file:///cp/job-1/chk-13", now.UnixMilli()
			})), cluster(1, "CANCELED")),
			wantAction: None, wantPath: "file:///cp/job-1/chk-13", wantRestore: RestoreSavepoint,
		},
		"savepoint, job FAILED with HA metadata: fall back to last-state": {
			in:         input(upgrading(sp), cluster(1, "FAILED")),
			wantAction: None, wantRestore: RestoreHA, wantEvent: "LastStateFallback", wantError: "Job job-1 failed",
		},
		"savepoint, job RESTARTING with HA metadata: fall back to last-state": {
			in:         input(upgrading(sp), cluster(1, "RESTARTING")),
			wantAction: None, wantRestore: RestoreHA, wantEvent: "LastStateFallback",
		},
		"savepoint, job FAILED, no HA, newer checkpoint: restore the checkpoint": {
			in:         input(upgrading(sp), cluster(1, "FAILED", noHA, checkpoint("file:///cp/job-1/chk-3", now.UnixMilli()))),
			wantAction: None, wantPath: "file:///cp/job-1/chk-3", wantRestore: RestoreSavepoint, wantEvent: "CheckpointFallback",
			wantError: "Job job-1 failed",
		},
		"savepoint, job FAILED, no HA, no checkpoint: refuse": {
			in:         input(upgrading(sp), cluster(1, "FAILED", noHA)),
			wantAction: None, wantError: "savepoint upgrade needs a RUNNING job, but the job is FAILED", wantRestore: RestoreSavepoint,
		},
		"savepoint, job RESTARTING, fallback disabled: refuse": {
			in: func() Input {
				in := input(upgrading(sp), cluster(1, "RESTARTING"))
				in.Options.LastStateFallback = false
				return in
			}(),
			wantAction: None, wantError: "but the job is RESTARTING", wantRestore: RestoreSavepoint,
		},
		"savepoint, REST unreachable: wait and say so": {
			in:         input(upgrading(sp), cluster(1, "", unreachable)),
			wantAction: None, wantError: "waits for the JobManager REST API", wantRestore: RestoreSavepoint,
		},
		"savepoint, cluster gone, no savepoint, no HA: refuse to start empty": {
			in:         input(upgrading(sp), Observation{}),
			wantAction: None, wantError: "no savepoint to restore from", wantRestore: RestoreSavepoint,
		},
		"last-state, job RUNNING with HA metadata: delete the cluster, keep HA": {
			in:         input(upgrading(ls), cluster(1, "RUNNING")),
			wantAction: Action{Kind: ActDeleteCluster}, wantRestore: RestoreHA,
		},
		"last-state, newest checkpoint older than max.allowed.checkpoint.age: a savepoint upgrade instead": {
			in:         maxCheckpointAge(input(upgrading(ls), cluster(1, "RUNNING", checkpoint("file:///cp/job-1/chk-3", now.Add(-time.Hour).UnixMilli())))),
			wantAction: None, wantRestore: RestoreSavepoint, wantEvent: "CheckpointTooOld",
		},
		"last-state, no checkpoint at all under max.allowed.checkpoint.age: a savepoint upgrade instead": {
			in:         maxCheckpointAge(input(upgrading(ls), cluster(1, "RUNNING"))),
			wantAction: None, wantRestore: RestoreSavepoint, wantEvent: "CheckpointTooOld",
		},
		"last-state, checkpoint within max.allowed.checkpoint.age: delete, keep HA": {
			in:         maxCheckpointAge(input(upgrading(ls), cluster(1, "RUNNING", checkpoint("file:///cp/job-1/chk-3", now.Add(-time.Minute).UnixMilli())))),
			wantAction: Action{Kind: ActDeleteCluster}, wantRestore: RestoreHA,
		},
		"last-state, job started within max.allowed.checkpoint.age: delete, keep HA": {
			in:         maxCheckpointAge(input(upgrading(ls), cluster(1, "RUNNING", startedAgo(10*time.Minute)))),
			wantAction: Action{Kind: ActDeleteCluster}, wantRestore: RestoreHA,
		},
		"last-state, job FAILED with HA metadata: delete, keep HA": {
			in:         input(upgrading(ls), cluster(1, "RESTARTING")),
			wantAction: Action{Kind: ActDeleteCluster}, wantRestore: RestoreHA,
		},
		"last-state, REST unreachable just after a savepoint: wait for it (HA would restore an older checkpoint)": {
			in:         input(upgrading(ls, withLastSavepoint("file:///sp/savepoint-p", 2*time.Second)), cluster(1, "", unreachable)),
			wantAction: None, wantRestore: RestoreHA, wantEvent: "AwaitingJobManager",
		},
		"last-state, REST unreachable, savepoint older than the wait: delete, keep HA": {
			in:         input(upgrading(ls, withLastSavepoint("file:///sp/savepoint-p", RESTWaitAfterSavepoint)), cluster(1, "", unreachable)),
			wantAction: Action{Kind: ActDeleteCluster}, wantRestore: RestoreHA, wantEvent: "Cleanup",
		},
		"last-state, job RUNNING, HA metadata missing: refuse": {
			in:         input(upgrading(ls), cluster(1, "RUNNING", noHA)),
			wantAction: None, wantError: "needs HA metadata", wantRestore: RestoreHA,
		},
		"last-state, job FINISHED: restore its newest checkpoint": {
			in:         input(upgrading(ls), cluster(1, "FINISHED", noHA, checkpoint("file:///cp/job-1/chk-9", 5))),
			wantAction: Action{Kind: ActDeleteCluster, DeleteHA: true}, wantPath: "file:///cp/job-1/chk-9", wantRestore: RestoreSavepoint,
		},
		"last-state, job FAILED for good, no checkpoint: refuse": {
			in:         input(upgrading(ls), cluster(1, "FAILED", noHA)),
			wantAction: None, wantError: "refusing to start from empty state", wantRestore: RestoreHA,
		},
		"last-state, cluster gone, HA metadata: deploy and recover the same job": {
			in:         input(upgrading(ls), missing()),
			wantAction: Action{Kind: ActDeploy, Deploy: &Deploy{Generation: 2, JobID: "job-1"}}, wantRestore: RestoreHA,
		},
		"last-state, cluster gone, HA metadata missing: refuse to start empty": {
			in:         input(upgrading(ls), Observation{}),
			wantAction: None, wantError: "HA metadata is missing", wantRestore: RestoreHA,
		},
		"savepoint redeploy: cancel, then restore initialSavepointPath": {
			in: input(upgradingSpec(sp, func(s *flinkv1beta1.FlinkDeploymentSpec) {
				n := int64(1)
				s.Job.SavepointRedeployNonce, s.Job.InitialSavepointPath = &n, "file:///sp/known-good"
			}, withUpgradePath("file:///sp/known-good")), cluster(1, "RUNNING")),
			wantAction: Action{Kind: ActCancelJob, JobID: "job-1"}, wantPath: "file:///sp/known-good", wantRestore: RestoreSavepoint,
		},
		"new cluster partly deployed (operator stopped between writes): apply the same objects again": {
			in:         input(upgrading(sp, withUpgradePath("file:///sp/s")), cluster(2, "RUNNING")),
			wantAction: Action{Kind: ActDeploy, Deploy: &Deploy{Generation: 2, JobID: JobIDFor("uid-1", 2, ""), RestorePath: "file:///sp/s"}},
			wantPath:   "file:///sp/s", wantRestore: RestoreSavepoint,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Decide(tc.in)
			if diff := cmp.Diff(tc.wantAction, withoutSpec(got.Action)); diff != "" {
				t.Errorf("action (-want +got):\n%s", diff)
			}
			if !strings.Contains(flinkv1beta1.ErrorMessage(got.Status.Error), tc.wantError) || (tc.wantError == "" && flinkv1beta1.ErrorMessage(got.Status.Error) != "") {
				t.Errorf("status.error = %q, want %q", flinkv1beta1.ErrorMessage(got.Status.Error), tc.wantError)
			}
			if got.Status.JobStatus.UpgradeSavepointPath != tc.wantPath {
				t.Errorf("upgradeSavepointPath = %q, want %q", got.Status.JobStatus.UpgradeSavepointPath, tc.wantPath)
			}
			if r := reconciled(got.Status); r.Metadata.Restore != tc.wantRestore {
				t.Errorf("restore mode %q, want %q", r.Metadata.Restore, tc.wantRestore)
			}
			if tc.wantEvent != "" && !hasEvent(got.Events, tc.wantEvent) {
				t.Errorf("no event with %q in %+v", tc.wantEvent, got.Events)
			}
			if flinkv1beta1.ErrorMessage(got.Status.Error) != "" && !hasEvent(got.Events, flinkv1beta1.ErrorMessage(got.Status.Error)) && flinkv1beta1.ErrorMessage(got.Status.Error) != flinkv1beta1.ErrorMessage(tc.in.Resource.Status.Error) {
				t.Errorf("status.error %q has no Warning event", flinkv1beta1.ErrorMessage(got.Status.Error))
			}
		})
	}
}

// withoutSpec drops the deployed spec from an action, so cases compare what matters.
func withoutSpec(a Action) Action {
	if a.Deploy != nil {
		d := *a.Deploy
		d.Spec = flinkv1beta1.FlinkDeploymentSpec{}
		a.Deploy = &d
	}
	return a
}

func hasEvent(events []Event, s string) bool {
	for _, e := range events {
		if strings.Contains(e.Reason, s) || strings.Contains(e.Message, s) {
			return true
		}
	}
	return false
}

// TestUpgradeOfAFailedJobNeverReusesAnOldUpgradeSavepoint: the savepoint the deployed job
// started from is older than that job's own state once it ran (found by the property sweep).
func TestUpgradeOfAFailedJobNeverReusesAnOldUpgradeSavepoint(t *testing.T) {
	d := deployed(sp, withUpgradePath("file:///sp/savepoint-old"))
	p := int32(4)
	d.Spec.Job.Parallelism, d.Generation = &p, 2
	o := cluster(1, "FAILED", checkpoint("file:///cp/chk-9", now.UnixMilli()), noHA)
	first := Decide(input(d, o))
	if first.Status.JobStatus.UpgradeSavepointPath != "" {
		t.Fatalf("upgradeSavepointPath %q kept: the failed job ran after it", first.Status.JobStatus.UpgradeSavepointPath)
	}
	d.Status = first.Status
	second := Decide(input(d, o))
	if second.Status.JobStatus.UpgradeSavepointPath != "file:///cp/chk-9" {
		t.Errorf("restore point %q, want the failed job's newest checkpoint", second.Status.JobStatus.UpgradeSavepointPath)
	}
}

// TestFixingABadImageKeepsTheUpgradeSavepoint: a JobManager that never started ran no job, so
// the upgrade savepoint is still the newest state when the user fixes the spec.
func TestFixingABadImageKeepsTheUpgradeSavepoint(t *testing.T) {
	d := deployed(sp, withUpgradePath("file:///sp/savepoint-2"))
	d.Spec.Image, d.Generation = "flink:fixed", 2
	o := cluster(1, "", func(o *Observation) {
		o.JobManager.Available, o.RESTReachable, o.JobManagerNeverStarted = false, false, true
	})
	got := Decide(input(d, o))
	if got.Status.JobStatus.UpgradeSavepointPath != "file:///sp/savepoint-2" {
		t.Errorf("upgradeSavepointPath %q, want the upgrade savepoint kept", got.Status.JobStatus.UpgradeSavepointPath)
	}
}

// TestLastStateUpgradeWaitsBoundedForTheRESTAPIAfterASavepoint: savepoints never enter Flink's
// HA checkpoint store, so tearing down while the REST API is down right after a savepoint would
// recover an older checkpoint. The operator polls again no later than the wait's end.
func TestLastStateUpgradeWaitsBoundedForTheRESTAPIAfterASavepoint(t *testing.T) {
	for ago, want := range map[time.Duration]time.Duration{
		0:                                    RESTWaitAfterSavepoint,
		20 * time.Second:                     RESTWaitAfterSavepoint - 20*time.Second,
		RESTWaitAfterSavepoint - time.Second: time.Second,
	} {
		got := Decide(input(upgrading(ls, withLastSavepoint("file:///sp/savepoint-p", ago)), cluster(1, "", unreachable)))
		if got.Action.Kind != ActNone || got.RequeueAfter <= 0 || got.RequeueAfter > want {
			t.Errorf("savepoint %s ago: action %s, requeue %s; want none, requeue within %s", ago, got.Action.Kind, got.RequeueAfter, want)
		}
	}
}

// maxCheckpointAge sets kubernetes.operator.job.upgrade.last-state.max.allowed.checkpoint.age
// to 30 minutes.
func maxCheckpointAge(in Input) Input {
	in.Options.LastStateMaxCheckpointAge = 30 * time.Minute
	return in
}
