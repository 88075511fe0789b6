package decide

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
)

func TestPeriodicSavepoint(t *testing.T) {
	hourly := func(in *Input) { in.Options.PeriodicSavepoint = config.Periodic{Every: time.Hour} }
	hourlyCron := func(in *Input) {
		p, err := config.ParsePeriodic("0 0 * * * ?") // on the hour; now is 10:00
		if err != nil {
			t.Fatal(err)
		}
		in.Options.PeriodicSavepoint = p
	}
	lastPeriodic := func(ago time.Duration) func(*flinkv1beta1.FlinkDeployment) {
		return func(d *flinkv1beta1.FlinkDeployment) {
			d.Status.JobStatus.SavepointInfo = &flinkv1beta1.SavepointInfo{LastPeriodicSavepointTimestamp: now.Add(-ago).UnixMilli()}
		}
	}
	cases := map[string]struct {
		d           *flinkv1beta1.FlinkDeployment
		o           Observation
		opts        func(*Input)
		wantTrigger bool
	}{
		"an interval after the last periodic savepoint, one is triggered": {
			d: deployed(sp, lastPeriodic(61*time.Minute)), o: cluster(1, "RUNNING"), opts: hourly, wantTrigger: true,
		},
		"the first one comes an interval after the job started": {
			d: deployed(sp), o: cluster(1, "RUNNING", startedAgo(2*time.Hour)), opts: hourly, wantTrigger: true,
		},
		"a cron schedule: due at its first time after the last periodic savepoint": {
			d: deployed(sp, lastPeriodic(61*time.Minute)), o: cluster(1, "RUNNING"), opts: hourlyCron, wantTrigger: true,
		},
		"a cron schedule: one just taken waits for the next time (the next hour)": {
			d: deployed(sp, lastPeriodic(0)), o: cluster(1, "RUNNING"), opts: hourlyCron,
		},
		"never before the interval passed": {
			d: deployed(sp, lastPeriodic(30*time.Minute)), o: cluster(1, "RUNNING"), opts: hourly,
		},
		"never without the option": {
			d: deployed(sp, lastPeriodic(5*time.Hour)), o: cluster(1, "RUNNING"),
		},
		"never while the job does not run": {
			d: deployed(sp, lastPeriodic(5*time.Hour)), o: cluster(1, "RESTARTING"), opts: hourly,
		},
		"never while another savepoint is in flight": {
			d: deployed(sp, lastPeriodic(5*time.Hour), withTrigger("manual-1", flinkv1beta1.SnapshotTriggerManual)),
			o: cluster(1, "RUNNING", savepointOp(OperationObservation{})), opts: hourly,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := inputWith(tc.d, tc.o, tc.opts)
			got := Decide(in)
			triggered := got.Action.Kind == ActTriggerSavepoint
			if triggered != tc.wantTrigger {
				t.Fatalf("action %+v, want a trigger: %v", got.Action, tc.wantTrigger)
			}
			if !triggered {
				return
			}
			info := got.Status.JobStatus.SavepointInfo
			if info.TriggerType != flinkv1beta1.SnapshotTriggerPeriodic || info.LastPeriodicSavepointTimestamp != now.UnixMilli() {
				t.Errorf("trigger type %s, last periodic %d", info.TriggerType, info.LastPeriodicSavepointTimestamp)
			}
			// A retry of the same reconcile (the status write lost) asks for the same savepoint.
			if again := Decide(in); again.Action.TriggerID != got.Action.TriggerID {
				t.Error("a retried periodic trigger got a new trigger id")
			}
		})
	}
}

func TestCleanHistory(t *testing.T) {
	at := func(ago time.Duration, loc string, typ flinkv1beta1.SnapshotTriggerType) flinkv1beta1.Savepoint {
		return flinkv1beta1.Savepoint{TimeStamp: now.Add(-ago).UnixMilli(), Location: loc, TriggerType: typ}
	}
	p := flinkv1beta1.SnapshotTriggerPeriodic
	history := func(h ...flinkv1beta1.Savepoint) func(*flinkv1beta1.FlinkDeployment) {
		return func(d *flinkv1beta1.FlinkDeployment) {
			d.Status.JobStatus.SavepointInfo = &flinkv1beta1.SavepointInfo{SavepointHistory: h, LastSavepoint: &h[len(h)-1]}
		}
	}
	maxTwo := func(in *Input) { in.Options.SavepointHistoryMaxCount = 2 }
	cases := map[string]struct {
		d           *flinkv1beta1.FlinkDeployment
		o           Observation
		opts        func(*Input)
		wantAction  Action
		wantHistory []string
		// wantForgotten are the trimmed savepoints whose records go (every trimmed one).
		wantForgotten []string
	}{
		"over max.count: the oldest is disposed and dropped": {
			d: deployed(sp, history(at(3*time.Hour, "sp-1", p), at(2*time.Hour, "sp-2", p), at(time.Hour, "sp-3", p))),
			o: cluster(1, "RUNNING"), opts: maxTwo,
			wantAction: Action{Kind: ActDisposeSavepoint, Path: "sp-1"}, wantHistory: []string{"sp-2", "sp-3"},
			wantForgotten: []string{"sp-1"},
		},
		"two over: one disposal per reconcile, the other entry waits": {
			d: deployed(sp, history(at(4*time.Hour, "sp-0", p), at(3*time.Hour, "sp-1", p), at(2*time.Hour, "sp-2", p),
				at(time.Hour, "sp-3", p))),
			o: cluster(1, "RUNNING"), opts: maxTwo,
			wantAction: Action{Kind: ActDisposeSavepoint, Path: "sp-0"}, wantHistory: []string{"sp-1", "sp-2", "sp-3"},
			wantForgotten: []string{"sp-0"},
		},
		"older than max.age (24h): disposed": {
			d:          deployed(sp, history(at(25*time.Hour, "sp-old", p), at(time.Hour, "sp-new", p))),
			o:          cluster(1, "RUNNING"),
			wantAction: Action{Kind: ActDisposeSavepoint, Path: "sp-old"}, wantHistory: []string{"sp-new"},
			wantForgotten: []string{"sp-old"},
		},
		"never the newest, however old": {
			d: deployed(sp, history(at(48*time.Hour, "sp-only", p))), o: cluster(1, "RUNNING"),
			wantAction: None, wantHistory: []string{"sp-only"},
		},
		"upgrade savepoints leave the history but are not disposed": {
			d: deployed(sp, history(at(3*time.Hour, "sp-up", flinkv1beta1.SnapshotTriggerUpgrade), at(2*time.Hour, "sp-2", p), at(time.Hour, "sp-3", p))),
			o: cluster(1, "RUNNING"), opts: maxTwo,
			wantAction: None, wantHistory: []string{"sp-2", "sp-3"}, wantForgotten: []string{"sp-up"},
		},
		"with cleanup disabled entries are dropped, files kept": {
			d: deployed(sp, history(at(3*time.Hour, "sp-1", p), at(2*time.Hour, "sp-2", p), at(time.Hour, "sp-3", p))),
			o: cluster(1, "RUNNING"), opts: func(in *Input) { maxTwo(in); in.Options.SavepointCleanup = false },
			wantAction: None, wantHistory: []string{"sp-2", "sp-3"}, wantForgotten: []string{"sp-1"},
		},
		"while the REST API is down the entry waits for its disposal": {
			d: deployed(sp, history(at(3*time.Hour, "sp-1", p), at(2*time.Hour, "sp-2", p), at(time.Hour, "sp-3", p))),
			o: cluster(1, "RUNNING", unreachable), opts: maxTwo,
			wantAction: None, wantHistory: []string{"sp-1", "sp-2", "sp-3"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := inputWith(tc.d, tc.o, tc.opts)
			got := Decide(in)
			if diff := cmp.Diff(tc.wantAction, got.Action); diff != "" {
				t.Errorf("action (-want +got):\n%s", diff)
			}
			var locs []string
			for _, h := range got.Status.JobStatus.SavepointInfo.SavepointHistory {
				locs = append(locs, h.Location)
			}
			if diff := cmp.Diff(tc.wantHistory, locs); diff != "" {
				t.Errorf("history (-want +got):\n%s", diff)
			}
			var forgotten []string
			for _, f := range got.Records.Delete {
				forgotten = append(forgotten, f.Location)
			}
			if diff := cmp.Diff(tc.wantForgotten, forgotten); diff != "" {
				t.Errorf("records deleted (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTriggersOfAGoneClusterAreDropped: a periodic savepoint triggered just before a suspend
// took the cluster down can never complete; it must not block the resource (found by the sweep).
func TestTriggersOfAGoneClusterAreDropped(t *testing.T) {
	d := deployed(ls, withTrigger("periodic-1", flinkv1beta1.SnapshotTriggerPeriodic), func(d *flinkv1beta1.FlinkDeployment) {
		d.Spec.Job.State = flinkv1beta1.JobStateSuspended
		r := newReconciledSpec(d.Spec, 1, false, RestoreHA)
		d.Status.ReconciliationStatus.LastReconciledSpec, d.Status.ReconciliationStatus.LastStableSpec = r.Encode(), r.Encode()
		d.Status.JobStatus.State = flinkv1beta1.JobStatusSuspended
	})
	got := Decide(input(d, missing()))
	if sp := got.Status.JobStatus.SavepointInfo; sp.TriggerID != "" || !hasEvent(got.Events, "its JobManager is gone") {
		t.Errorf("trigger %q, events %+v; want it dropped with a Warning", sp.TriggerID, got.Events)
	}
}

// TestPeriodicCheckpoint: a full checkpoint every kubernetes.operator.periodic.checkpoint.interval
// while the job runs on Flink 1.17 or later, its trigger id derived from the time it was due.
func TestPeriodicCheckpoint(t *testing.T) {
	hourly := func(in *Input) { in.Options.PeriodicCheckpoint = config.Periodic{Every: time.Hour} }
	version := func(v flinkv1beta1.FlinkVersion) func(*flinkv1beta1.FlinkDeployment) {
		return func(d *flinkv1beta1.FlinkDeployment) { d.Spec.FlinkVersion = v }
	}
	started := now.Add(-2 * time.Hour).UnixMilli()
	for name, tc := range map[string]struct {
		d    *flinkv1beta1.FlinkDeployment
		opts func(*Input)
		want Action
	}{
		"due on Flink 1.20": {
			d: deployed(sp, version("v1_20")), opts: hourly,
			want: Action{Kind: ActTriggerCheckpoint, JobID: "job-1", TriggerID: TriggerID("uid-1", "periodic-checkpoint", started), FormatType: "FULL"},
		},
		"incremental with kubernetes.operator.checkpoint.type": {
			d: deployed(sp, version("v1_20")), opts: func(in *Input) { hourly(in); in.Options.CheckpointType = "INCREMENTAL" },
			want: Action{Kind: ActTriggerCheckpoint, JobID: "job-1", TriggerID: TriggerID("uid-1", "periodic-checkpoint", started), FormatType: "INCREMENTAL"},
		},
		"never on Flink 1.16 (no REST trigger)": {d: deployed(sp, version("v1_16")), opts: hourly, want: None},
		"never without the option":              {d: deployed(sp, version("v1_20")), want: None},
		"not before the interval": {d: deployed(sp, version("v1_20"), func(d *flinkv1beta1.FlinkDeployment) {
			d.Status.JobStatus.CheckpointInfo = &flinkv1beta1.CheckpointInfo{LastPeriodicCheckpointTimestamp: now.Add(-time.Minute).UnixMilli()}
		}), opts: hourly, want: None},
	} {
		t.Run(name, func(t *testing.T) {
			got := Decide(inputWith(tc.d, cluster(1, "RUNNING", startedAgo(2*time.Hour)), tc.opts))
			if diff := cmp.Diff(tc.want, got.Action); diff != "" {
				t.Errorf("action (-want +got):\n%s", diff)
			}
			if tc.want.Kind == ActTriggerCheckpoint {
				info := got.Status.JobStatus.CheckpointInfo
				if info.TriggerType != flinkv1beta1.SnapshotTriggerPeriodic || info.LastPeriodicCheckpointTimestamp != now.UnixMilli() ||
					string(info.FormatType) != tc.want.FormatType {
					t.Errorf("checkpoint info %+v", info)
				}
			}
		})
	}
}
