package decide

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// unstable is a resource whose generation-2 spec (parallelism 4, image flink:bad) was deployed
// ago before now and never became stable; generation 1 is the last stable spec.
func unstable(mode flinkv1beta1.UpgradeMode, ago time.Duration, mods ...func(*flinkv1beta1.FlinkDeployment)) *flinkv1beta1.FlinkDeployment {
	d := upgradingSpec(mode, func(s *flinkv1beta1.FlinkDeploymentSpec) {
		s.Image = "flink:bad"
		s.FlinkConfiguration.Set("kubernetes.operator.deployment.rollback.enabled", "true")
	})
	r := reconciled(d.Status)
	d.Status.ReconciliationStatus.State = flinkv1beta1.ReconciliationDeployed
	d.Status.ReconciliationStatus.LastReconciledSpec = r.Encode()
	d.Status.ReconciliationStatus.ReconciliationTimestamp = now.Add(-ago).UnixMilli()
	d.Status.JobStatus.State = flinkv1beta1.JobStatusReconciling
	for _, m := range mods {
		m(d)
	}
	return d
}

// badJobManager observes the generation-2 JobManager failing to pull its image.
func badJobManager(o *Observation) {
	o.JobManager.Generation, o.JobManager.Available, o.RESTReachable, o.Job = 2, false, false, nil
	o.PodError = &PodError{Reason: "ImagePullBackOff", Message: "flink:bad"}
}

func rollbackInput(d *flinkv1beta1.FlinkDeployment, o Observation) Input {
	in := input(d, o)
	in.Options.RollbackEnabled = true
	return in
}

func TestRollbackConditions(t *testing.T) {
	late := 6 * time.Minute
	cases := map[string]struct {
		in           Input
		wantRollback bool
		wantRestore  RestoreMode
		wantError    string
	}{
		"an unstable last-state spec past the readiness timeout rolls back with HA metadata": {
			in: rollbackInput(unstable(ls, late), cluster(2, "", badJobManager)), wantRollback: true, wantRestore: RestoreHA,
		},
		"a savepoint upgrade whose JobManager never started rolls back from the upgrade savepoint": {
			in: rollbackInput(unstable(sp, late, withUpgradePath("file:///sp/savepoint-2")),
				cluster(2, "", badJobManager, noHA, func(o *Observation) { o.JobManagerNeverStarted = true })),
			wantRollback: true, wantRestore: RestoreSavepoint,
		},
		"a stateless spec rolls back to a fresh start when HA metadata exists": {
			in: rollbackInput(unstable(none, late), cluster(2, "", badJobManager)), wantRollback: true, wantRestore: RestoreNone,
		},
		"never before the readiness timeout": {
			in: rollbackInput(unstable(ls, 4*time.Minute), cluster(2, "", badJobManager)),
		},
		"never when rollback is not enabled": {
			in: input(unstable(ls, late), cluster(2, "", badJobManager)),
		},
		"never while the spec changed": {
			in: rollbackInput(unstable(ls, late, func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Image, d.Generation = "flink:fixed", 3 }),
				cluster(2, "", badJobManager)),
		},
		"never to a suspended last stable spec": {
			in: rollbackInput(unstable(ls, late, func(d *flinkv1beta1.FlinkDeployment) {
				s := spec(ls)
				s.Job.State = flinkv1beta1.JobStateSuspended
				d.Status.ReconciliationStatus.LastStableSpec = newReconciledSpec(s, 1, false, RestoreHA).Encode()
			}), cluster(2, "", badJobManager)),
		},
		"never across a Flink version change": {
			in: rollbackInput(unstable(ls, late, func(d *flinkv1beta1.FlinkDeployment) {
				s := spec(ls)
				s.FlinkVersion = "v1_19"
				d.Status.ReconciliationStatus.LastStableSpec = newReconciledSpec(s, 1, false, RestoreHA).Encode()
			}), cluster(2, "", badJobManager)),
		},
		"never without HA metadata: the operator says why": {
			in: rollbackInput(unstable(ls, late), cluster(2, "", badJobManager, noHA)), wantError: "cannot be rolled back",
		},
		"never from savepoint when the JobManager did start": {
			in:        rollbackInput(unstable(sp, late, withUpgradePath("file:///sp/savepoint-2")), cluster(2, "RESTARTING", noHA)),
			wantError: "cannot be rolled back",
		},
		"never from savepoint when the JobManager was READY once (a later pod could not pull its image)": {
			in: rollbackInput(unstable(sp, late, withUpgradePath("file:///sp/savepoint-2"), withMeta(func(m *SpecMetadata) { m.JobManagerStarted = true })),
				cluster(2, "", badJobManager, noHA, func(o *Observation) { o.JobManagerNeverStarted = true })),
			wantError: "cannot be rolled back",
		},
		"never twice: a rolled back resource stays rolled back": {
			in: rollbackInput(unstable(ls, late, func(d *flinkv1beta1.FlinkDeployment) {
				d.Status.ReconciliationStatus.State = flinkv1beta1.ReconciliationRolledBack
			}), cluster(1, "RUNNING")),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Decide(tc.in)
			rolling := got.Status.ReconciliationStatus.State == flinkv1beta1.ReconciliationRollingBack
			if rolling != tc.wantRollback || (rolling != hasReason(got.Events, "Rollback")) {
				t.Fatalf("state %s, events %+v; want rollback %v", got.Status.ReconciliationStatus.State, got.Events, tc.wantRollback)
			}
			if rolling {
				stable, _ := ParseReconciledSpec(got.Status.ReconciliationStatus.LastStableSpec)
				if stable.Metadata.Restore != tc.wantRestore || got.Status.LifecycleState != flinkv1beta1.LifecycleRollingBack || got.Action.Kind != ActNone {
					t.Errorf("restore %s lifecycle %s action %s; want %s ROLLING_BACK None", stable.Metadata.Restore, got.Status.LifecycleState, got.Action.Kind, tc.wantRestore)
				}
				if reconciled(got.Status).Generation() != 2 {
					t.Error("the reconciled spec must keep the spec that failed")
				}
			}
			if tc.wantError != "" && (!strings.Contains(flinkv1beta1.ErrorMessage(got.Status.Error), tc.wantError) || !hasEvent(got.Events, tc.wantError)) {
				t.Errorf("status.error %q, want it to say %q with a Warning event", flinkv1beta1.ErrorMessage(got.Status.Error), tc.wantError)
			}
			if tc.wantError == "" && strings.Contains(flinkv1beta1.ErrorMessage(got.Status.Error), "rolled back") {
				t.Errorf("status.error %q", flinkv1beta1.ErrorMessage(got.Status.Error))
			}
		})
	}
}

// runRollback steps a rollback through teardown and deploy.
func runRollback(t *testing.T, d *flinkv1beta1.FlinkDeployment, o Observation) (teardown, deploy Result) {
	t.Helper()
	in := rollbackInput(d, o)
	start := Decide(in)
	if start.Status.ReconciliationStatus.State != flinkv1beta1.ReconciliationRollingBack {
		t.Fatalf("no rollback: %+v", start.Events)
	}
	d.Status = start.Status
	teardown = Decide(rollbackInput(d, o))
	d.Status = teardown.Status
	o.JobManager, o.TaskManager, o.PodError = nil, nil, nil
	deploy = Decide(rollbackInput(d, o))
	d.Status = deploy.Status
	return teardown, deploy
}

func TestRollbackRunsThrough(t *testing.T) {
	t.Run("last-state keeps HA metadata and recovers the job on the stable spec", func(t *testing.T) {
		d := unstable(ls, 6*time.Minute)
		teardown, deploy := runRollback(t, d, cluster(2, "", badJobManager))
		if diff := cmp.Diff(Action{Kind: ActDeleteCluster}, teardown.Action); diff != "" {
			t.Errorf("teardown (-want +got):\n%s", diff)
		}
		want := Action{Kind: ActDeploy, Deploy: &Deploy{Spec: spec(ls), Generation: 1, Run: "rollback-2", JobID: "job-1"}}
		if diff := cmp.Diff(want, deploy.Action); diff != "" {
			t.Errorf("deploy (-want +got):\n%s", diff)
		}
		if deploy.Status.ReconciliationStatus.State != flinkv1beta1.ReconciliationRolledBack || deploy.Status.LifecycleState != flinkv1beta1.LifecycleRolledBack {
			t.Errorf("after the deploy: %s / %s", deploy.Status.ReconciliationStatus.State, deploy.Status.LifecycleState)
		}
		if reconciled(deploy.Status).Spec.Image != "flink:bad" {
			t.Error("lastReconciledSpec must keep the failed spec, so it is not retried")
		}
		// Rolled back and running: nothing more happens until the spec changes.
		again := Decide(rollbackInput(d, cluster(1, "RUNNING", func(o *Observation) { o.JobManager.Run = "rollback-2" })))
		if again.Action.Kind != ActNone || again.Status.ReconciliationStatus.State != flinkv1beta1.ReconciliationRolledBack {
			t.Errorf("rolled back and running: action %s state %s", again.Action.Kind, again.Status.ReconciliationStatus.State)
		}
	})
	t.Run("savepoint mode with a JobManager that never started restores the upgrade savepoint", func(t *testing.T) {
		d := unstable(sp, 6*time.Minute, withUpgradePath("file:///sp/savepoint-2"))
		o := cluster(2, "", badJobManager, noHA, func(o *Observation) { o.JobManagerNeverStarted = true })
		teardown, deploy := runRollback(t, d, o)
		if diff := cmp.Diff(Action{Kind: ActDeleteCluster, DeleteHA: true}, teardown.Action); diff != "" {
			t.Errorf("teardown (-want +got):\n%s", diff)
		}
		want := Action{Kind: ActDeploy, Deploy: &Deploy{
			Spec: spec(sp), Generation: 1, Run: "rollback-2", JobID: JobIDFor("uid-1", 1, "rollback-2"), RestorePath: "file:///sp/savepoint-2",
		}}
		if diff := cmp.Diff(want, deploy.Action); diff != "" {
			t.Errorf("deploy (-want +got):\n%s", diff)
		}
	})
	t.Run("a new spec during the rollback breaks out into a normal upgrade", func(t *testing.T) {
		d := unstable(ls, 6*time.Minute)
		o := cluster(2, "", badJobManager)
		d.Status = Decide(rollbackInput(d, o)).Status
		d.Spec.Image, d.Generation = "flink:fixed", 3
		got := Decide(rollbackInput(d, o))
		if got.Status.ReconciliationStatus.State != flinkv1beta1.ReconciliationUpgrading || reconciled(got.Status).Generation() != 3 {
			t.Errorf("state %s generation %d; want UPGRADING 3", got.Status.ReconciliationStatus.State, reconciled(got.Status).Generation())
		}
	})
}

func hasReason(events []Event, reason string) bool {
	for _, e := range events {
		if e.Reason == reason {
			return true
		}
	}
	return false
}

func TestJobManagerSeenReadyIsRemembered(t *testing.T) {
	d := unstable(ls, time.Minute)
	got := Decide(rollbackInput(d, cluster(2, "RUNNING")))
	if !reconciled(got.Status).Metadata.JobManagerStarted {
		t.Error("a READY JobManager of the deployed spec is not remembered as started")
	}
}
