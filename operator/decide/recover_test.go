package decide

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

func TestRecoverJobManager(t *testing.T) {
	noHAConf := func(d *flinkv1beta1.FlinkDeployment) {
		d.Spec.FlinkConfiguration = flinkv1beta1.NewFlinkConfiguration(map[string]string{"state.savepoints.dir": "file:///sp"})
		r := newReconciledSpec(d.Spec, 1, false, restoreModeFor(d.Spec, DiffUpgrade))
		d.Status.ReconciliationStatus.LastReconciledSpec, d.Status.ReconciliationStatus.LastStableSpec = r.Encode(), r.Encode()
	}
	recoveryOff := func(in *Input) { in.Options.JMDeploymentRecovery = false }
	cases := map[string]struct {
		d          *flinkv1beta1.FlinkDeployment
		o          Observation
		opts       func(*Input)
		wantAction *Action // nil: no action
		wantError  string
		wantEvent  string
		wantJob    flinkv1beta1.JobStatusState
	}{
		"HA enabled and HA metadata present: the JobManager is recreated and recovers the same job": {
			d: deployed(sp), o: missing(),
			wantAction: &Action{Kind: ActDeploy, Deploy: &Deploy{Spec: spec(sp), Generation: 1, JobID: "job-1"}},
			wantEvent:  "RecoverDeployment", wantJob: flinkv1beta1.JobStatusReconciling,
		},
		"a stateless job without HA is recreated from empty state": {
			d: func() *flinkv1beta1.FlinkDeployment { d := deployed(none); noHAConf(d); return d }(), o: Observation{},
			wantAction: &Action{Kind: ActDeploy, Deploy: &Deploy{Spec: func() flinkv1beta1.FlinkDeploymentSpec {
				s := spec(none)
				s.FlinkConfiguration = flinkv1beta1.NewFlinkConfiguration(map[string]string{"state.savepoints.dir": "file:///sp"})
				return s
			}(), Generation: 1, JobID: "job-1"}},
			wantEvent: "a stateless job starts anew", wantJob: flinkv1beta1.JobStatusReconciling,
		},
		"never: a stateful job without HA is not started from empty state": {
			d: func() *flinkv1beta1.FlinkDeployment { d := deployed(sp); noHAConf(d); return d }(), o: Observation{},
			wantError: "high availability is not enabled", wantJob: flinkv1beta1.JobStatusReconciling,
		},
		"never: a stateful job whose HA metadata vanished with the JobManager is not started from empty state": {
			d: deployed(ls), o: Observation{}, wantError: "HA metadata", wantJob: flinkv1beta1.JobStatusReconciling,
		},
		"never: with recovery disabled the operator only reports": {
			d: deployed(sp), o: missing(), opts: recoveryOff, wantError: "jm-deployment-recovery.enabled is false",
			wantJob: flinkv1beta1.JobStatusReconciling,
		},
		"a finished job's missing JobManager is not recovered": {
			d: func() *flinkv1beta1.FlinkDeployment {
				d := deployed(sp)
				d.Status.JobStatus.State = flinkv1beta1.JobStatusFinished
				return d
			}(), o: missing(), wantJob: flinkv1beta1.JobStatusFinished,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := inputWith(tc.d, tc.o, tc.opts)
			got := Decide(in)
			want := None
			if tc.wantAction != nil {
				want = *tc.wantAction
			}
			if diff := cmp.Diff(want, got.Action); diff != "" {
				t.Errorf("action (-want +got):\n%s", diff)
			}
			if got.Status.Error == "" != (tc.wantError == "") || !hasEvent(got.Events, tc.wantError) {
				t.Errorf("status.error %q, want one containing %q with a Warning event (events %+v)", flinkv1beta1.ErrorMessage(got.Status.Error), tc.wantError, got.Events)
			}
			if tc.wantEvent != "" && !hasEvent(got.Events, tc.wantEvent) {
				t.Errorf("no %q event: %+v", tc.wantEvent, got.Events)
			}
			if got.Status.JobStatus.State != tc.wantJob {
				t.Errorf("job state %s, want %s", got.Status.JobStatus.State, tc.wantJob)
			}
		})
	}
}

func TestRestartFailedJob(t *testing.T) {
	restartOn := func(in *Input) { in.Options.RestartFailedJobs = true }
	cases := map[string]struct {
		d         *flinkv1beta1.FlinkDeployment
		o         Observation
		opts      func(*Input)
		wantState flinkv1beta1.ReconciliationState
		wantRun   string
	}{
		"a failed job is restarted as a new run of its generation": {
			d: deployed(ls), o: cluster(1, "FAILED"), opts: restartOn,
			wantState: flinkv1beta1.ReconciliationUpgrading, wantRun: "restart-1",
		},
		"never: without kubernetes.operator.job.restart.failed a failed job stays failed": {
			d: deployed(ls), o: cluster(1, "FAILED"),
			wantState: flinkv1beta1.ReconciliationDeployed,
		},
		"never: a running job is not restarted": {
			d: deployed(ls), o: cluster(1, "RUNNING"), opts: restartOn,
			wantState: flinkv1beta1.ReconciliationDeployed,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := inputWith(tc.d, tc.o, tc.opts)
			got := Decide(in)
			if got.Status.ReconciliationStatus.State != tc.wantState || reconciled(got.Status).Metadata.JobRun != tc.wantRun {
				t.Fatalf("state %s run %q; want %s %q", got.Status.ReconciliationStatus.State, reconciled(got.Status).Metadata.JobRun, tc.wantState, tc.wantRun)
			}
			if got.Action.Kind != ActNone {
				t.Errorf("action %s: the restart must be recorded before anything is torn down", got.Action.Kind)
			}
		})
	}
}

// TestRestartFailedJobRunsThrough follows a restart: the failed cluster is taken down and the
// new JobManager restores the failed job's newest checkpoint under a new job id.
func TestRestartFailedJobRunsThrough(t *testing.T) {
	d := deployed(ls)
	failed := cluster(1, "FAILED", checkpoint("file:///cp/chk-7", now.UnixMilli()), noHA)
	in := input(d, failed)
	in.Options.RestartFailedJobs = true
	step := func(o Observation) Result {
		t.Helper()
		in.Resource, in.Observed = d, o
		r := Decide(in)
		d.Status = r.Status
		return r
	}
	first := step(failed)
	if !hasEvent(first.Events, "RestartFailedJob") {
		t.Fatalf("no RestartFailedJob event: %+v", first.Events)
	}
	if got := step(failed); got.Action.Kind != ActDeleteCluster {
		t.Fatalf("second step %s, want the failed cluster deleted", got.Action.Kind)
	}
	got := step(Observation{})
	want := Action{Kind: ActDeploy, Deploy: &Deploy{Spec: d.Spec, Generation: 1, Run: "restart-1", JobID: JobIDFor("uid-1", 1, "restart-1"), RestorePath: "file:///cp/chk-7"}}
	if diff := cmp.Diff(want, got.Action); diff != "" {
		t.Errorf("deploy (-want +got):\n%s", diff)
	}
	if want.Deploy.JobID == JobIDFor("uid-1", 1, "") {
		t.Error("the restarted job reuses the failed job's id")
	}
}

func TestDeletingASessionClusterWaitsForItsJobs(t *testing.T) {
	session := func(d *flinkv1beta1.FlinkDeployment) {
		d.Spec.Job = nil
		d.DeletionTimestamp = &metav1.Time{Time: now}
	}
	cases := map[string]struct {
		jobs, unmanaged []string
		// noBlockJobs and noBlockUnmanaged turn the session.deletion.block-on-* options off.
		noBlockJobs, noBlockUnmanaged bool
		wantAction                    ActionKind
		wantError                     string
	}{
		"session jobs still target it: nothing is torn down, the user is told which": {
			jobs: []string{"etl", "report"}, wantAction: ActNone, wantError: "FlinkSessionJob(s) etl, report",
		},
		"session jobs, block-on-session-jobs false: the cluster is deleted": {
			jobs: []string{"etl"}, unmanaged: []string{"j1"}, noBlockJobs: true, wantAction: ActDeleteAll,
		},
		"a job no session job manages: nothing is torn down, the user is told which": {
			unmanaged: []string{"j1"}, wantAction: ActNone, wantError: "runs job(s) j1 that no FlinkSessionJob manages",
		},
		"a job no session job manages, block-on-unmanaged-jobs false: the cluster is deleted": {
			unmanaged: []string{"j1"}, noBlockUnmanaged: true, wantAction: ActDeleteAll,
		},
		"no session jobs: the cluster is deleted": {wantAction: ActDeleteAll},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := cluster(1, "", func(o *Observation) { o.SessionJobs, o.UnmanagedJobs = tc.jobs, tc.unmanaged })
			got := Decide(inputWith(deployed(sp, session), o, func(in *Input) {
				in.Options.BlockOnSessionJobs, in.Options.BlockOnUnmanagedJobs = !tc.noBlockJobs, !tc.noBlockUnmanaged
			}))
			if got.Action.Kind != tc.wantAction || got.RemoveFinalizer {
				t.Errorf("action %s, finalizer released %v; want %s and the finalizer kept", got.Action.Kind, got.RemoveFinalizer, tc.wantAction)
			}
			if tc.wantError != "" && (!strings.Contains(flinkv1beta1.ErrorMessage(got.Status.Error), tc.wantError) || !hasEvent(got.Events, tc.wantError)) {
				t.Errorf("status.error %q, events %+v; want %q", flinkv1beta1.ErrorMessage(got.Status.Error), got.Events, tc.wantError)
			}
		})
	}
}

func TestSyncIngress(t *testing.T) {
	withIngress := func(tmpl string) func(*flinkv1beta1.FlinkDeployment) {
		return func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Ingress = &flinkv1beta1.IngressSpec{Template: tmpl} }
	}
	hash := IngressHash(&flinkv1beta1.IngressSpec{Template: "{{name}}.example.com"})
	ingress := func(h string) func(*Observation) {
		return func(o *Observation) { o.Ingress = &IngressState{Hash: h} }
	}
	cases := map[string]struct {
		d    *flinkv1beta1.FlinkDeployment
		o    Observation
		want ActionKind
	}{
		"asked for and missing: applied":     {d: deployed(sp, withIngress("{{name}}.example.com")), o: cluster(1, "RUNNING"), want: ActApplyIngress},
		"asked for and current: nothing":     {d: deployed(sp, withIngress("{{name}}.example.com")), o: cluster(1, "RUNNING", ingress(hash)), want: ActNone},
		"template changed: applied again":    {d: deployed(sp, withIngress("ui.example.com/{{name}}")), o: cluster(1, "RUNNING", ingress(hash)), want: ActApplyIngress},
		"no longer asked for: deleted":       {d: deployed(sp), o: cluster(1, "RUNNING", ingress(hash)), want: ActDeleteIngress},
		"never asked for: nothing to delete": {d: deployed(sp), o: cluster(1, "RUNNING"), want: ActNone},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Decide(input(tc.d, tc.o))
			if got.Action.Kind != tc.want {
				t.Errorf("action %s, want %s", got.Action.Kind, tc.want)
			}
			if tc.want == ActApplyIngress && (got.Action.Ingress == nil || got.Action.Ingress.Template != tc.d.Spec.Ingress.Template) {
				t.Errorf("applies %+v", got.Action.Ingress)
			}
		})
	}
}

func TestRestartUnhealthyJob(t *testing.T) {
	healthCheck := func(in *Input) {
		in.Options.HealthCheck, in.Options.HealthRestartsThreshold = true, 3
		in.Options.HealthRestartsWindow, in.Options.HealthCheckpointsWindow = 2*time.Minute, 5*time.Minute
	}
	// The deployed spec checkpoints every 10 s; withoutCheckpointing turns it off.
	withoutCheckpointing := func(d *flinkv1beta1.FlinkDeployment) {
		delete(d.Spec.FlinkConfiguration, "execution.checkpointing.interval")
		r := newReconciledSpec(d.Spec, 1, false, RestoreHA)
		d.Status.ReconciliationStatus.LastReconciledSpec, d.Status.ReconciliationStatus.LastStableSpec = r.Encode(), r.Encode()
	}
	restarts := func(n int64) func(*Observation) {
		return func(o *Observation) { o.Job.NumRestarts = &n }
	}
	// baseline is the restart count the health check took ago.
	baseline := func(n int64, ago time.Duration) func(*flinkv1beta1.FlinkDeployment) {
		return func(d *flinkv1beta1.FlinkDeployment) {
			at := now.Add(-ago).UnixMilli()
			d.Status.ClusterInfo = map[string]string{ClusterHealthInfoKey: fmt.Sprintf(`{"timeStamp":%d,"numRestarts":%d,"numRestartsEvaluationTimeStamp":%d}`, at, n, at)}
		}
	}
	cases := map[string]struct {
		d           *flinkv1beta1.FlinkDeployment
		o           Observation
		opts        func(*Input)
		wantRestart string // in the event, "" for none
	}{
		"restarts over the threshold within the window": {
			d: deployed(ls, baseline(10, time.Minute)), o: cluster(1, "RESTARTING", restarts(14)), opts: healthCheck,
			wantRestart: "restart count hit threshold: 4 restarts within 2m0s, more than 3",
		},
		"at the threshold is healthy, as in Apache": {
			d: deployed(ls, withoutCheckpointing, baseline(10, time.Minute)), o: cluster(1, "RUNNING", restarts(13)), opts: healthCheck,
		},
		"an old baseline scales the count down to the window": {
			d: deployed(ls, withoutCheckpointing, baseline(10, 10*time.Minute)), o: cluster(1, "RUNNING", restarts(20)), opts: healthCheck,
		},
		"a first count only takes a baseline": {
			d: deployed(ls, withoutCheckpointing), o: cluster(1, "RUNNING", restarts(500)), opts: healthCheck,
		},
		"a lower count (a new job) takes a new baseline": {
			d: deployed(ls, withoutCheckpointing, baseline(100, time.Minute)), o: cluster(1, "RUNNING", restarts(5)), opts: healthCheck,
		},
		"a baseline that is not the operator's JSON is taken again": {
			d: deployed(ls, withoutCheckpointing, func(d *flinkv1beta1.FlinkDeployment) {
				d.Status.ClusterInfo = map[string]string{ClusterHealthInfoKey: `{"numRestarts":-5}`}
			}), o: cluster(1, "RUNNING", restarts(50)), opts: healthCheck,
		},
		"no checkpoint within the window": {
			d: deployed(ls), o: cluster(1, "RUNNING", startedAgo(time.Hour), checkpoint("file:///cp/chk-1", now.Add(-6*time.Minute).UnixMilli())),
			opts: healthCheck, wantRestart: "no checkpoint completed within 5m0s",
		},
		"a young job has time for its first checkpoint": {
			d: deployed(ls), o: cluster(1, "RUNNING", startedAgo(time.Minute)), opts: healthCheck,
		},
		"never without checkpointing": {
			d: deployed(ls, withoutCheckpointing), o: cluster(1, "RUNNING", startedAgo(time.Hour)), opts: healthCheck,
		},
		"never with the health check off": {
			d: deployed(ls, baseline(0, time.Minute)), o: cluster(1, "RESTARTING", restarts(100)),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := inputWith(tc.d, tc.o, tc.opts)
			got := Decide(in)
			restarted := got.Status.ReconciliationStatus.State == flinkv1beta1.ReconciliationUpgrading
			if restarted != (tc.wantRestart != "") {
				t.Fatalf("state %s events %+v; want a restart: %q", got.Status.ReconciliationStatus.State, got.Events, tc.wantRestart)
			}
			if restarted && (!hasReason(got.Events, "RestartUnhealthyJob") || !hasEvent(got.Events, tc.wantRestart)) {
				t.Errorf("events %+v, want RestartUnhealthyJob saying %q", got.Events, tc.wantRestart)
			}
		})
	}
}
