package decide

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

func fresh(mods ...func(*flinkv1beta1.FlinkDeployment)) *flinkv1beta1.FlinkDeployment {
	d := &flinkv1beta1.FlinkDeployment{
		ObjectMeta: metav1.ObjectMeta{Name: "job", Namespace: "ns", UID: "uid-1", Generation: 1},
		Spec:       spec(sp),
	}
	for _, m := range mods {
		m(d)
	}
	return d
}

func TestFirstDeployment(t *testing.T) {
	cases := map[string]struct {
		d          *flinkv1beta1.FlinkDeployment
		wantState  flinkv1beta1.ReconciliationState
		wantPath   string
		wantLife   flinkv1beta1.LifecycleState
		wantAction ActionKind
	}{
		"a new resource is recorded before anything is deployed": {
			d: fresh(), wantState: flinkv1beta1.ReconciliationUpgrading, wantLife: flinkv1beta1.LifecycleUpgrading, wantAction: ActNone,
		},
		"initialSavepointPath becomes the restore point": {
			d:         fresh(func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.InitialSavepointPath = "s3://b/sp-1" }),
			wantState: flinkv1beta1.ReconciliationUpgrading, wantPath: "s3://b/sp-1", wantLife: flinkv1beta1.LifecycleUpgrading, wantAction: ActNone,
		},
		"an invalid new resource is reported and not recorded": {
			d:         fresh(func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.JarURI = "" }),
			wantState: "", wantLife: flinkv1beta1.LifecycleCreated, wantAction: ActNone,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Decide(input(tc.d, Observation{}))
			if got.Status.ReconciliationStatus.State != tc.wantState || got.Status.JobStatus.UpgradeSavepointPath != tc.wantPath ||
				got.Status.LifecycleState != tc.wantLife || got.Action.Kind != tc.wantAction {
				t.Errorf("state %q path %q lifecycle %q action %q; want %q %q %q %q", got.Status.ReconciliationStatus.State,
					got.Status.JobStatus.UpgradeSavepointPath, got.Status.LifecycleState, got.Action.Kind, tc.wantState, tc.wantPath, tc.wantLife, tc.wantAction)
			}
			if got.Status.ObservedGeneration != 1 {
				t.Errorf("observedGeneration %d", got.Status.ObservedGeneration)
			}
		})
	}
}

func TestFirstDeploymentThenDeploy(t *testing.T) {
	d := fresh(func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.InitialSavepointPath = "s3://b/sp-1" })
	first := Decide(input(d, Observation{}))
	d.Status = first.Status
	second := Decide(input(d, Observation{}))
	if second.Action.Kind != ActDeploy || second.Action.Deploy.RestorePath != "s3://b/sp-1" || second.Action.Deploy.Generation != 1 {
		t.Fatalf("second step %+v, want a deploy restoring s3://b/sp-1", second.Action)
	}
	if second.Status.ReconciliationStatus.State != flinkv1beta1.ReconciliationDeployed || second.Status.JobManagerDeploymentStatus != flinkv1beta1.JobManagerDeploying {
		t.Errorf("status after deploy: %s / %s", second.Status.ReconciliationStatus.State, second.Status.JobManagerDeploymentStatus)
	}
	if reconciled(second.Status).Metadata.FirstDeployment {
		t.Error("still marked as first deployment after deploying")
	}
}

// TestDeployWritesWhatTheNextLookSees: a deploy's status already holds what the next look
// observes of the Deployments it created (no pods yet), so that look writes nothing.
func TestDeployWritesWhatTheNextLookSees(t *testing.T) {
	recorded := func() *flinkv1beta1.FlinkDeployment {
		d := fresh()
		d.Status = Decide(input(d, Observation{})).Status
		return d
	}
	created := Observation{JobManager: &DeploymentState{Generation: 1}, TaskManager: &DeploymentState{}, HAMetadata: true}
	for name, tc := range map[string]struct {
		d *flinkv1beta1.FlinkDeployment
		o Observation
	}{
		"a first deploy":              {d: recorded(), o: Observation{}},
		"a lost JobManager recovered": {d: deployed(sp), o: missing()},
	} {
		t.Run(name, func(t *testing.T) {
			deploy := Decide(input(tc.d, tc.o))
			if deploy.Action.Kind != ActDeploy {
				t.Fatalf("got %+v, want a deploy", deploy.Action)
			}
			tc.d.Status = deploy.Status
			next := Decide(input(tc.d, created))
			if diff := cmp.Diff(deploy.Status, next.Status); diff != "" {
				t.Errorf("the look after the deploy changed the status (-deploy +next):\n%s", diff)
			}
		})
	}
}

// TestDeployKeepsTheTaskManagersItSees: a deploy whose status write was lost is done again
// over the TaskManagers already running, and status says so (a standalone cluster's
// TaskManager Deployment; a native cluster reports what its job needs).
func TestDeployKeepsTheTaskManagersItSees(t *testing.T) {
	d := fresh(func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Mode = flinkv1beta1.DeploymentModeStandalone })
	d.Status = Decide(input(d, Observation{})).Status
	o := Observation{JobManager: &DeploymentState{Generation: 1}, TaskManager: &DeploymentState{Replicas: 2}, HAMetadata: true}
	res := Decide(input(d, o))
	if res.Action.Kind != ActDeploy {
		t.Fatalf("got %+v, want the deploy done again", res.Action)
	}
	if got := res.Status.TaskManager; got == nil || got.Replicas != 2 {
		t.Errorf("status.taskManager %+v, want the 2 replicas seen", got)
	}
}

func TestSuspendedFirstDeploymentDeploysNothing(t *testing.T) {
	d := fresh(func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.State = flinkv1beta1.JobStateSuspended })
	d.Status = Decide(input(d, Observation{})).Status
	got := Decide(input(d, Observation{}))
	if got.Action.Kind != ActNone || got.Status.LifecycleState != flinkv1beta1.LifecycleSuspended || got.Status.JobStatus.State != flinkv1beta1.JobStatusSuspended {
		t.Errorf("action %s lifecycle %s job %s", got.Action.Kind, got.Status.LifecycleState, got.Status.JobStatus.State)
	}
}

func TestSpecChangeStartsAnUpgrade(t *testing.T) {
	d := deployed(sp)
	p := int32(8)
	d.Spec.Job.Parallelism, d.Generation = &p, 2
	got := Decide(input(d, cluster(1, "RUNNING")))
	if got.Action.Kind != ActNone || got.Status.ReconciliationStatus.State != flinkv1beta1.ReconciliationUpgrading {
		t.Fatalf("action %s state %s: the write-ahead log must come before any action", got.Action.Kind, got.Status.ReconciliationStatus.State)
	}
	r := reconciled(got.Status)
	if r.Generation() != 2 || *r.Spec.Job.Parallelism != 8 || r.Metadata.Restore != RestoreSavepoint {
		t.Errorf("recorded %+v", r.Metadata)
	}
	if !hasEvent(got.Events, "job.parallelism : 2 -> 8") {
		t.Errorf("SpecChanged event does not name the field with its old and new value: %+v", got.Events)
	}
	if got.Status.LifecycleState != flinkv1beta1.LifecycleUpgrading {
		t.Errorf("lifecycle %s", got.Status.LifecycleState)
	}
}

func TestSteadyState(t *testing.T) {
	nonce := func(n int64) func(*flinkv1beta1.FlinkDeployment) {
		return func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.SavepointTriggerNonce, d.Generation = &n, 2 }
	}
	cases := map[string]struct {
		d          *flinkv1beta1.FlinkDeployment
		o          Observation
		wantAction ActionKind
		wantLife   flinkv1beta1.LifecycleState
		wantJM     flinkv1beta1.JobManagerDeploymentStatus
		wantError  string
		wantEvent  string
	}{
		"running on a ready cluster is stable": {
			d: deployed(sp), o: cluster(1, "RUNNING"), wantAction: ActNone,
			wantLife: flinkv1beta1.LifecycleStable, wantJM: flinkv1beta1.JobManagerReady,
		},
		"a failed job is FAILED with its cause": {
			d: deployed(sp), o: cluster(1, "FAILED", func(o *Observation) { o.Job.FailureCause = "java.lang.RuntimeException: boom" }),
			wantAction: ActNone, wantLife: flinkv1beta1.LifecycleFailed, wantJM: flinkv1beta1.JobManagerReady,
			wantError: "java.lang.RuntimeException: boom", wantEvent: "JobStatusChanged",
		},
		"a missing JobManager deployment of a suspended job is MISSING and nothing is recovered": {
			d: func() *flinkv1beta1.FlinkDeployment {
				d := deployed(sp)
				d.Spec.Job.State = flinkv1beta1.JobStateSuspended
				r := newReconciledSpec(d.Spec, 1, false, RestoreSavepoint)
				d.Status.ReconciliationStatus.LastReconciledSpec, d.Status.ReconciliationStatus.LastStableSpec = r.Encode(), r.Encode()
				d.Status.JobStatus.State = flinkv1beta1.JobStatusSuspended
				return d
			}(), o: missing(), wantAction: ActNone, wantLife: flinkv1beta1.LifecycleSuspended, wantJM: flinkv1beta1.JobManagerMissing,
		},
		"a JobManager still rolling out is DEPLOYING": {
			d: deployed(sp), o: cluster(1, "", func(o *Observation) { o.JobManager.Available, o.RESTReachable = false, false }),
			wantAction: ActNone, wantLife: flinkv1beta1.LifecycleStable, wantJM: flinkv1beta1.JobManagerDeploying,
		},
		"an available JobManager whose REST does not answer is DEPLOYED_NOT_READY": {
			d: deployed(sp), o: cluster(1, "", unreachable), wantAction: ActNone,
			wantLife: flinkv1beta1.LifecycleStable, wantJM: flinkv1beta1.JobManagerDeployedNotReady,
		},
		"a crash-looping JobManager pod is ERROR with the reason": {
			d: deployed(sp), o: cluster(1, "", func(o *Observation) { o.PodError = &PodError{Reason: "CrashLoopBackOff", Message: "back-off 5m"} }),
			wantAction: ActNone, wantLife: flinkv1beta1.LifecycleFailed, wantJM: flinkv1beta1.JobManagerError,
			wantError: "CrashLoopBackOff: back-off 5m", wantEvent: "CrashLoopBackOff",
		},
		"a ReplicaFailure condition is ERROR": {
			d: deployed(sp), o: cluster(1, "", func(o *Observation) { o.JobManager.ReplicaFailure = "FailedCreate: quota exceeded" }),
			wantAction: ActNone, wantLife: flinkv1beta1.LifecycleFailed, wantJM: flinkv1beta1.JobManagerError,
			wantError: "quota exceeded",
		},
		"a new savepoint nonce on a running job triggers a savepoint": {
			d: func() *flinkv1beta1.FlinkDeployment { d := deployed(sp); nonce(3)(d); return d }(), o: cluster(1, "RUNNING"),
			wantAction: ActTriggerSavepoint, wantLife: flinkv1beta1.LifecycleStable, wantJM: flinkv1beta1.JobManagerReady,
			wantEvent: "SavepointTriggered",
		},
		"a new savepoint nonce on a job that is not running is reported, not retried": {
			d: func() *flinkv1beta1.FlinkDeployment { d := deployed(sp); nonce(3)(d); return d }(), o: cluster(1, "RESTARTING"),
			wantAction: ActNone, wantLife: flinkv1beta1.LifecycleStable, wantJM: flinkv1beta1.JobManagerReady,
			wantEvent: "Cannot trigger the savepoint",
		},
		"a new checkpoint nonce triggers a checkpoint": {
			d: func() *flinkv1beta1.FlinkDeployment {
				d := deployed(sp)
				n := int64(1)
				d.Spec.Job.CheckpointTriggerNonce, d.Generation = &n, 2
				return d
			}(), o: cluster(1, "RUNNING"),
			wantAction: ActTriggerCheckpoint, wantLife: flinkv1beta1.LifecycleStable, wantJM: flinkv1beta1.JobManagerReady,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Decide(input(tc.d, tc.o))
			if got.Action.Kind != tc.wantAction || got.Status.LifecycleState != tc.wantLife || got.Status.JobManagerDeploymentStatus != tc.wantJM {
				t.Errorf("action %s lifecycle %s JM %s; want %s %s %s", got.Action.Kind, got.Status.LifecycleState,
					got.Status.JobManagerDeploymentStatus, tc.wantAction, tc.wantLife, tc.wantJM)
			}
			if !strings.Contains(flinkv1beta1.ErrorMessage(got.Status.Error), tc.wantError) || (tc.wantError == "" && flinkv1beta1.ErrorMessage(got.Status.Error) != "") {
				t.Errorf("status.error %q, want %q", flinkv1beta1.ErrorMessage(got.Status.Error), tc.wantError)
			}
			if tc.wantError != "" && !hasEvent(got.Events, tc.wantError) {
				t.Errorf("status.error without a Warning event: %+v", got.Events)
			}
			if tc.wantEvent != "" && !hasEvent(got.Events, tc.wantEvent) {
				t.Errorf("no %q event: %+v", tc.wantEvent, got.Events)
			}
			if got.RequeueAfter <= 0 {
				t.Error("no requeue: the resource would never be looked at again")
			}
		})
	}
}

func TestSavepointNonceIsRecordedWithTheTrigger(t *testing.T) {
	d := deployed(sp)
	n := int64(5)
	d.Spec.Job.SavepointTriggerNonce, d.Generation = &n, 2
	got := Decide(input(d, cluster(1, "RUNNING")))
	if got.Action.TriggerID != TriggerID("uid-1", "savepoint", 5) {
		t.Errorf("trigger id %s is not derived from the nonce", got.Action.TriggerID)
	}
	if r := reconciled(got.Status); r.Spec.Job.SavepointTriggerNonce == nil || *r.Spec.Job.SavepointTriggerNonce != 5 {
		t.Error("the nonce was not recorded with the trigger (it would be retried)")
	}
	d.Status = got.Status
	done := Decide(input(d, cluster(1, "RUNNING", savepointOp(OperationObservation{Done: true, Location: "file:///sp/savepoint-5"}))))
	sp := done.Status.JobStatus.SavepointInfo
	if sp.TriggerID != "" || sp.LastSavepoint == nil || sp.LastSavepoint.Location != "file:///sp/savepoint-5" || *sp.LastSavepoint.TriggerNonce != 5 {
		t.Errorf("after completion: %+v", sp)
	}
}

func TestDeletion(t *testing.T) {
	deleting := func() *flinkv1beta1.FlinkDeployment {
		d := deployed(sp)
		ts := metav1.NewTime(now)
		d.DeletionTimestamp = &ts
		return d
	}
	cases := map[string]struct {
		o              Observation
		savepointFirst bool
		want           ActionKind
		wantRelease    bool
	}{
		"a running job is cancelled first":                  {o: cluster(1, "RUNNING"), want: ActCancelJob},
		"with savepoint-on-deletion it is stopped with one": {o: cluster(1, "RUNNING"), savepointFirst: true, want: ActStopWithSavepoint},
		"a savepoint Flink takes ends first": {
			o: func() Observation { o := cluster(1, "RUNNING"); o.Job.SavepointInProgress = true; return o }(), savepointFirst: true, want: ActNone,
		},
		"a cancelled job's cluster is deleted with HA data": {o: cluster(1, "CANCELED"), want: ActDeleteAll},
		"an unreachable JobManager does not block deletion": {o: cluster(1, "", unreachable), want: ActDeleteAll},
		"leftover services are deleted":                     {o: Observation{Leftovers: []string{"service/job-rest"}}, want: ActDeleteAll},
		"nothing left: the finalizer is released":           {o: Observation{}, want: ActNone, wantRelease: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := input(deleting(), tc.o)
			in.Options.SavepointOnDeletion = tc.savepointFirst
			got := Decide(in)
			if got.Action.Kind != tc.want || got.RemoveFinalizer != tc.wantRelease {
				t.Errorf("action %s release %v, want %s %v", got.Action.Kind, got.RemoveFinalizer, tc.want, tc.wantRelease)
			}
			if got.Status.LifecycleState != flinkv1beta1.LifecycleDeleting {
				t.Errorf("lifecycle %s", got.Status.LifecycleState)
			}
		})
	}
}

func TestDiff(t *testing.T) {
	base := spec(sp)
	cases := map[string]struct {
		mod        func(*flinkv1beta1.FlinkDeploymentSpec)
		wantType   DiffType
		wantFields []string
	}{
		"no change":                  {mod: func(*flinkv1beta1.FlinkDeploymentSpec) {}, wantType: DiffIgnore},
		"savepoint nonce is ignored": {mod: func(s *flinkv1beta1.FlinkDeploymentSpec) { n := int64(1); s.Job.SavepointTriggerNonce = &n }, wantType: DiffIgnore, wantFields: []string{"job.savepointTriggerNonce"}},
		"upgrade mode is ignored":    {mod: func(s *flinkv1beta1.FlinkDeploymentSpec) { s.Job.UpgradeMode = ls }, wantType: DiffIgnore, wantFields: []string{"job.upgradeMode"}},
		"operator options are ignored": {
			mod: func(s *flinkv1beta1.FlinkDeploymentSpec) {
				s.FlinkConfiguration.Set("kubernetes.operator.reconcile.interval", "5s")
			},
			wantType: DiffIgnore, wantFields: []string{"flinkConfiguration.kubernetes.operator.reconcile.interval"},
		},
		"autoscaler options are ignored": {
			mod:      func(s *flinkv1beta1.FlinkDeploymentSpec) { s.FlinkConfiguration.Set("job.autoscaler.enabled", "true") },
			wantType: DiffIgnore, wantFields: []string{"flinkConfiguration.job.autoscaler.enabled"},
		},
		"parallelism.default is ignored when job.parallelism is set": {
			mod:      func(s *flinkv1beta1.FlinkDeploymentSpec) { s.FlinkConfiguration.Set("parallelism.default", "7") },
			wantType: DiffIgnore, wantFields: []string{"flinkConfiguration.parallelism.default"},
		},
		"parallelism.default upgrades when it is the job's parallelism": {
			mod: func(s *flinkv1beta1.FlinkDeploymentSpec) {
				s.Job.Parallelism = nil
				s.FlinkConfiguration.Set("parallelism.default", "7")
			},
			wantType: DiffUpgrade, wantFields: []string{"flinkConfiguration.parallelism.default", "job.parallelism"},
		},
		"TaskManager replicas upgrade in native mode (they set the parallelism)": {
			mod: func(s *flinkv1beta1.FlinkDeploymentSpec) {
				r := int32(3)
				s.TaskManager = &flinkv1beta1.TaskManagerSpec{Replicas: &r}
			},
			wantType: DiffUpgrade, wantFields: []string{"taskManager.replicas"},
		},
		"parallelism upgrades in native mode": {
			mod:      func(s *flinkv1beta1.FlinkDeploymentSpec) { p := int32(9); s.Job.Parallelism = &p },
			wantType: DiffUpgrade, wantFields: []string{"job.parallelism"},
		},
		"parallelism scales in standalone mode": {
			mod: func(s *flinkv1beta1.FlinkDeploymentSpec) {
				p := int32(9)
				s.Job.Parallelism, s.Mode = &p, flinkv1beta1.DeploymentModeStandalone
			},
			wantType: DiffUpgrade, wantFields: []string{"job.parallelism", "mode"},
		},
		"image and a Flink key upgrade": {
			mod: func(s *flinkv1beta1.FlinkDeploymentSpec) {
				s.Image = "flink:2.0"
				s.FlinkConfiguration.Set("taskmanager.numberOfTaskSlots", "4")
			},
			wantType: DiffUpgrade, wantFields: []string{"flinkConfiguration.taskmanager.numberOfTaskSlots", "image"},
		},
		"the same key written nested is no change": {
			mod: func(s *flinkv1beta1.FlinkDeploymentSpec) {
				delete(s.FlinkConfiguration, "state.savepoints.dir")
				s.FlinkConfiguration["state"] = jsonRaw(`{"savepoints.dir":"file:///data/sp"}`)
			},
			wantType: DiffIgnore,
		},
		"job state is an upgrade":            {mod: func(s *flinkv1beta1.FlinkDeploymentSpec) { s.Job.State = flinkv1beta1.JobStateSuspended }, wantType: DiffUpgrade, wantFields: []string{"job.state"}},
		"savepoint redeploy nonce redeploys": {mod: func(s *flinkv1beta1.FlinkDeploymentSpec) { n := int64(2); s.Job.SavepointRedeployNonce = &n }, wantType: DiffSavepointRedeploy, wantFields: []string{"job.savepointRedeployNonce"}},
	}
	standalone := *base.DeepCopy()
	standalone.Mode = flinkv1beta1.DeploymentModeStandalone
	scaled := *standalone.DeepCopy()
	scaled.TaskManager = &flinkv1beta1.TaskManagerSpec{Replicas: new(int32(3))}
	if typ, fields := Diff(standalone, scaled); typ != DiffScale || !slices.Equal(fields, []string{"taskManager.replicas"}) {
		t.Errorf("standalone TaskManager replicas: %s %v, want SCALE [taskManager.replicas]", typ, fields)
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			next := *base.DeepCopy()
			tc.mod(&next)
			typ, fields := Diff(base, next)
			if typ != tc.wantType {
				t.Errorf("Diff type %s, want %s", typ, tc.wantType)
			}
			if diff := cmp.Diff(tc.wantFields, fields); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTrimHistory(t *testing.T) {
	at := func(h int) flinkv1beta1.Savepoint {
		return flinkv1beta1.Savepoint{TimeStamp: now.Add(-time.Duration(h) * time.Hour).UnixMilli(), Location: "sp-" + itoa(int64(h))}
	}
	h := []flinkv1beta1.Savepoint{at(50), at(30), at(3), at(2), at(1)}
	got := trimHistory(h, 2, 24*time.Hour, now)
	if diff := cmp.Diff([]flinkv1beta1.Savepoint{at(2), at(1)}, got); diff != "" {
		t.Errorf("by count (-want +got):\n%s", diff)
	}
	got = trimHistory([]flinkv1beta1.Savepoint{at(50), at(30)}, 10, 24*time.Hour, now)
	if diff := cmp.Diff([]flinkv1beta1.Savepoint{at(30)}, got); diff != "" {
		t.Errorf("the newest is kept even when too old (-want +got):\n%s", diff)
	}
}

func TestSuspendedSpecUpdateStartsNothing(t *testing.T) {
	d := deployed(sp)
	d.Spec.Job.State = flinkv1beta1.JobStateSuspended
	r := newReconciledSpec(d.Spec, 1, false, RestoreSavepoint)
	d.Status.ReconciliationStatus.LastReconciledSpec, d.Status.ReconciliationStatus.LastStableSpec = r.Encode(), r.Encode()
	d.Status.JobStatus.State, d.Status.JobManagerDeploymentStatus = flinkv1beta1.JobStatusSuspended, flinkv1beta1.JobManagerMissing
	d.Status.JobStatus.UpgradeSavepointPath = "file:///sp/savepoint-1"
	d.Spec.Image, d.Generation = "flink:2.0", 2

	first := Decide(input(d, missing()))
	d.Status = first.Status
	second := Decide(input(d, missing()))
	if first.Action.Kind != ActNone || second.Action.Kind != ActNone {
		t.Errorf("actions %s, %s: a suspended spec change must start nothing", first.Action.Kind, second.Action.Kind)
	}
	if second.Status.LifecycleState != flinkv1beta1.LifecycleSuspended || reconciled(second.Status).Spec.Image != "flink:2.0" {
		t.Errorf("lifecycle %s, recorded image %s", second.Status.LifecycleState, reconciled(second.Status).Spec.Image)
	}
	if second.Status.JobStatus.UpgradeSavepointPath != "file:///sp/savepoint-1" {
		t.Error("the savepoint of the suspend was forgotten")
	}
}

func TestUnchangedObservationWritesNoStatus(t *testing.T) {
	d := deployed(sp)
	first := Decide(input(d, cluster(1, "RUNNING")))
	d.Status = first.Status
	in := input(d, cluster(1, "RUNNING"))
	in.Now = now.Add(time.Minute)
	second := Decide(in)
	if diff := cmp.Diff(first.Status, second.Status); diff != "" {
		t.Errorf("a reconcile with nothing new changed the status (-first +second):\n%s", diff)
	}
}

func TestIgnorableChangeIsObserved(t *testing.T) {
	d := deployed(sp)
	d.Spec.Job.UpgradeMode, d.Generation = ls, 2
	got := Decide(input(d, cluster(1, "RUNNING")))
	if got.Status.ObservedGeneration != 2 || reconciled(got.Status).Generation() != 2 || got.Action.Kind != ActNone {
		t.Errorf("observedGeneration %d, recorded generation %d, action %s; want 2, 2, None",
			got.Status.ObservedGeneration, reconciled(got.Status).Generation(), got.Action.Kind)
	}
	if got.Status.LifecycleState != flinkv1beta1.LifecycleStable {
		t.Errorf("an ignorable change made the resource %s", got.Status.LifecycleState)
	}
}

// TestUnknownOptionIsWarnedOncePerGeneration: a kubernetes.operator.* key no operator reads
// is named in a Warning Event when its generation is first looked at, not on every reconcile;
// the spec runs all the same.
func TestUnknownOptionIsWarnedOncePerGeneration(t *testing.T) {
	typo := func(d *flinkv1beta1.FlinkDeployment) {
		d.Spec.FlinkConfiguration.Set("kubernetes.operator.savepoint.histroy.max.count", "3")
	}
	for name, tc := range map[string]struct {
		observed int64
		want     []string
	}{
		"a new generation": {observed: 1, want: []string{
			"Warning UnknownOption flinkConfiguration: kubernetes.operator.savepoint.histroy.max.count is not an option of the Flink operator (did you mean kubernetes.operator.savepoint.history.max.count?); it has no effect",
		}},
		"a generation already looked at": {observed: 2},
	} {
		t.Run(name, func(t *testing.T) {
			d := deployed(sp, typo)
			p := int32(8)
			d.Spec.Job.Parallelism, d.Generation, d.Status.ObservedGeneration = &p, 2, tc.observed
			got := Decide(input(d, cluster(1, "RUNNING")))
			var warned []string
			for _, e := range got.Events {
				if e.Reason == ReasonUnknownOption {
					warned = append(warned, string(e.Type)+" "+e.Reason+" "+e.Message)
				}
			}
			if diff := cmp.Diff(tc.want, warned); diff != "" {
				t.Errorf("UnknownOption Events (-want +got):\n%s", diff)
			}
			if got.Status.ReconciliationStatus.State != flinkv1beta1.ReconciliationUpgrading && tc.observed == 1 {
				t.Errorf("the spec with an unknown option did not start its upgrade: %s", got.Status.ReconciliationStatus.State)
			}
		})
	}
}

// TestOptionNotAppliedIsWarnedOncePerGeneration: a Flink kubernetes.* option the operator
// does not apply is named, with why, in a Warning when its generation is first looked at.
func TestOptionNotAppliedIsWarnedOncePerGeneration(t *testing.T) {
	for name, tc := range map[string]struct {
		observed int64
		want     []string
	}{
		"a new generation": {observed: 1, want: []string{
			"Warning OptionNotApplied flinkConfiguration sets options this operator does not apply: kubernetes.jobmanager.owner.reference (the operator owns what it renders)",
		}},
		"a generation already looked at": {observed: 2},
	} {
		t.Run(name, func(t *testing.T) {
			d := deployed(sp, func(d *flinkv1beta1.FlinkDeployment) {
				d.Spec.FlinkConfiguration.Set("kubernetes.jobmanager.owner.reference", "kind:X")
				d.Spec.FlinkConfiguration.Set("kubernetes.jobmanager.labels", "team:a") // applied
			})
			d.Generation, d.Status.ObservedGeneration = 2, tc.observed
			var warned []string
			for _, e := range Decide(input(d, cluster(1, "RUNNING"))).Events {
				if e.Reason == "OptionNotApplied" {
					warned = append(warned, string(e.Type)+" "+e.Reason+" "+e.Message)
				}
			}
			if diff := cmp.Diff(tc.want, warned); diff != "" {
				t.Errorf("OptionNotApplied Events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNoSecondSavepointWhileFlinkTakesOne: while Flink's checkpoint history shows a savepoint
// in progress that the status does not (its trigger was lost with a status write), a changed
// savepoint nonce and a savepoint upgrade wait for it and the nonce is not consumed; once it
// ended, the nonce triggers.
func TestNoSecondSavepointWhileFlinkTakesOne(t *testing.T) {
	busy := func(o Observation) Observation { o.Job.SavepointInProgress = true; return o }
	d := deployed(sp)
	n := int64(5)
	d.Spec.Job.SavepointTriggerNonce, d.Generation = &n, 2
	got := Decide(input(d, busy(cluster(1, "RUNNING"))))
	if got.Action.Kind != ActNone || got.RequeueAfter == 0 {
		t.Errorf("nonce with a savepoint in flight: action %q, requeue %s; want none, and a look again", got.Action.Kind, got.RequeueAfter)
	}
	if r := reconciled(got.Status); r.Spec.Job.SavepointTriggerNonce != nil {
		t.Error("the waiting nonce was consumed: it would never trigger")
	}
	if later := Decide(input(d, cluster(1, "RUNNING"))); later.Action.Kind != ActTriggerSavepoint {
		t.Errorf("after the savepoint in flight ended: action %q, want a trigger", later.Action.Kind)
	}

	up := upgrading(sp)
	if got := Decide(input(up, busy(cluster(1, "RUNNING")))); got.Action.Kind == ActStopWithSavepoint {
		t.Error("the upgrade stopped the job with a second savepoint in flight")
	}
	if got := Decide(input(up, cluster(1, "RUNNING"))); got.Action.Kind != ActStopWithSavepoint {
		t.Errorf("the upgrade with no savepoint in flight: action %q, want a stop with a savepoint", got.Action.Kind)
	}
}
