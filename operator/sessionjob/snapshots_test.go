package sessionjob_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/decide"
	"github.com/flinkop/flinkop/operator/sessionjob"
)

// TestCheckpointTooOldTakesASavepoint: with
// kubernetes.operator.job.upgrade.last-state.max.allowed.checkpoint.age, a last-state upgrade
// of a running job whose newest checkpoint is older than the limit becomes a savepoint
// upgrade (the next step stops the job with a savepoint); a recent checkpoint is restored as
// before.
func TestCheckpointTooOldTakesASavepoint(t *testing.T) {
	for name, tc := range map[string]struct {
		checkpointAgo time.Duration
		want          []decide.ActionKind
	}{
		"checkpoint older than the limit": {checkpointAgo: time.Hour, want: []decide.ActionKind{decide.ActNone, decide.ActStopWithSavepoint}},
		"checkpoint within the limit":     {checkpointAgo: time.Minute, want: []decide.ActionKind{decide.ActCancelJob, decide.ActCancelJob}},
	} {
		t.Run(name, func(t *testing.T) {
			j := job(flinkv1beta1.UpgradeModeLastState, 1)
			deployedAt(j, 1, "old")
			j = upgrading(j)
			seen := withCheckpoint(running("old"), "file:///cp/3")
			seen.LatestCheckpoint.Timestamp = now.Add(-tc.checkpointAgo).UnixMilli()
			var got []decide.ActionKind
			for range 2 {
				in := input(j, ready(seen))
				in.Options.LastStateMaxCheckpointAge = 30 * time.Minute
				res := sessionjob.Decide(in)
				got = append(got, res.Action.Kind)
				j.Status = res.Status
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("actions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRestartFailedJob: with kubernetes.operator.job.restart.failed a FAILED session job is
// submitted again under a new job id, restoring the failed job's newest checkpoint; without
// the option it stays FAILED.
func TestRestartFailedJob(t *testing.T) {
	for name, tc := range map[string]struct {
		enabled bool
		want    []outcome
	}{
		"on": {enabled: true, want: []outcome{
			{Action: decide.ActNone, State: flinkv1beta1.ReconciliationUpgrading, JobID: "old"},
			{Action: decide.ActNone, State: flinkv1beta1.ReconciliationUpgrading, JobID: restarted},
			{Action: sessionjob.ActSubmitJob, State: flinkv1beta1.ReconciliationDeployed, JobID: restarted, Restore: "file:///cp/3"},
		}},
		"off": {want: []outcome{
			{Action: decide.ActNone, State: flinkv1beta1.ReconciliationDeployed, JobID: "old"},
			{Action: decide.ActNone, State: flinkv1beta1.ReconciliationDeployed, JobID: "old"},
			{Action: decide.ActNone, State: flinkv1beta1.ReconciliationDeployed, JobID: "old"},
		}},
	} {
		t.Run(name, func(t *testing.T) {
			j := job(flinkv1beta1.UpgradeModeLastState, 1)
			deployedAt(j, 1, "old")
			failed := withCheckpoint(&decide.JobObservation{ID: "old", State: "FAILED", StartTime: 1000}, "file:///cp/3")
			var got []outcome
			for range 3 {
				obs := ready(failed)
				if j.Status.JobStatus.JobID != "old" {
					obs = ready(nil) // the new job is not on the cluster yet
				}
				in := input(j, obs)
				in.Options.RestartFailedJobs = tc.enabled
				res := sessionjob.Decide(in)
				got = append(got, summarize(res, ""))
				j.Status = res.Status
			}
			for i := range got {
				got[i].ErrorHas, got[i].WarningFor = "", ""
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
		})
	}
}

// restarted is the job id of generation 1's first restart.
var restarted = decide.JobIDFor("uid-etl", 1, "restart-1")

// TestPeriodicSavepointsAndHistory: a session job takes a savepoint every
// kubernetes.operator.periodic.savepoint.interval, and its history is trimmed to
// kubernetes.operator.savepoint.history.max.count with the trimmed savepoint disposed of, as
// for a FlinkDeployment.
func TestPeriodicSavepointsAndHistory(t *testing.T) {
	hist := func(locs ...string) *flinkv1beta1.SavepointInfo {
		info := &flinkv1beta1.SavepointInfo{LastPeriodicSavepointTimestamp: now.Add(-10 * time.Minute).UnixMilli()}
		for i, l := range locs {
			info.SavepointHistory = append(info.SavepointHistory, flinkv1beta1.Savepoint{
				Location: l, TimeStamp: now.Add(time.Duration(i-len(locs)) * time.Minute).UnixMilli(), TriggerType: flinkv1beta1.SnapshotTriggerPeriodic,
			})
		}
		info.LastSavepoint = &info.SavepointHistory[len(locs)-1]
		return info
	}
	for name, tc := range map[string]struct {
		every time.Duration
		info  *flinkv1beta1.SavepointInfo
		want  sessionjob.Action
	}{
		"due: a periodic savepoint": {every: 5 * time.Minute, want: sessionjob.Action{
			Kind: decide.ActTriggerSavepoint, JobID: "old", TriggerID: decide.TriggerID("uid-etl", "periodic", now.Add(-10*time.Minute).UnixMilli()), FormatType: "CANONICAL",
		}},
		"not due yet":                         {every: time.Hour, want: sessionjob.Action{Kind: decide.ActNone}},
		"a history over its limit is trimmed": {info: hist("sp-1", "sp-2", "sp-3"), want: sessionjob.Action{Kind: decide.ActDisposeSavepoint, Path: "sp-1"}},
	} {
		t.Run(name, func(t *testing.T) {
			j := job(flinkv1beta1.UpgradeModeSavepoint, 1)
			deployedAt(j, 1, "old")
			j.Status.JobStatus.SavepointInfo = &flinkv1beta1.SavepointInfo{LastPeriodicSavepointTimestamp: now.Add(-10 * time.Minute).UnixMilli()}
			if tc.info != nil {
				j.Status.JobStatus.SavepointInfo = tc.info
			}
			in := input(j, ready(running("old")))
			in.Options.PeriodicSavepoint, in.Options.SavepointHistoryMaxCount = config.Periodic{Every: tc.every}, 2
			res := sessionjob.Decide(in)
			if diff := cmp.Diff(tc.want, res.Action); diff != "" {
				t.Errorf("action (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPeriodicCheckpoint: a session job on a Flink 1.17+ cluster takes a full checkpoint every
// kubernetes.operator.periodic.checkpoint.interval; on an older cluster it takes none.
func TestPeriodicCheckpoint(t *testing.T) {
	for version, want := range map[flinkv1beta1.FlinkVersion]decide.ActionKind{"v1_20": decide.ActTriggerCheckpoint, "v1_16": decide.ActNone} {
		j := job(flinkv1beta1.UpgradeModeSavepoint, 1)
		deployedAt(j, 1, "old")
		obs := ready(running("old"))
		obs.FlinkVersion = version
		in := input(j, obs)
		in.Options.PeriodicCheckpoint = config.Periodic{Every: time.Minute}
		if got := sessionjob.Decide(in); got.Action.Kind != want {
			t.Errorf("Flink %s: action %+v, want %s", version, got.Action, want)
		}
	}
}

// TestIgnorePendingSavepoint: a savepoint upgrade of a session job waits for a manual
// savepoint in flight; with kubernetes.operator.job.upgrade.ignore-pending-savepoint it
// abandons it (a SavepointError Warning) and stops the job with its own savepoint.
func TestIgnorePendingSavepoint(t *testing.T) {
	for name, tc := range map[string]struct {
		ignore bool
		want   []decide.ActionKind
	}{
		"waits by default": {want: []decide.ActionKind{decide.ActNone, decide.ActNone}},
		"ignored":          {ignore: true, want: []decide.ActionKind{decide.ActNone, decide.ActStopWithSavepoint}},
	} {
		t.Run(name, func(t *testing.T) {
			j := job(flinkv1beta1.UpgradeModeSavepoint, 1)
			deployedAt(j, 1, "old")
			j = upgrading(j)
			j.Status.JobStatus.SavepointInfo = &flinkv1beta1.SavepointInfo{TriggerID: "manual-1", TriggerType: flinkv1beta1.SnapshotTriggerManual}
			seen := ready(running("old"))
			seen.Job.SavepointInProgress = true // Flink lists the manual savepoint in progress
			seen.Savepoint = &decide.OperationObservation{}
			var got []decide.ActionKind
			abandoned := false
			for range 2 {
				in := input(j, seen)
				in.Options.IgnorePendingSavepoint = tc.ignore
				res := sessionjob.Decide(in)
				got = append(got, res.Action.Kind)
				for _, e := range res.Events {
					abandoned = abandoned || (e.Reason == "SavepointError" && strings.Contains(e.Message, "manual-1 was abandoned"))
				}
				j.Status = res.Status
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("actions (-want +got):\n%s", diff)
			}
			if abandoned != tc.ignore {
				t.Errorf("abandoned Warning: %v, want %v", abandoned, tc.ignore)
			}
		})
	}
}
