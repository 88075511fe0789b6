package decide

import (
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
)

var now = time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)

// spec is a valid job spec in the given upgrade mode with HA, checkpoints and savepoints
// (fixtures.StatefulDeployment's, with HA).
func spec(mode flinkv1beta1.UpgradeMode) flinkv1beta1.FlinkDeploymentSpec {
	return fixtures.WithHA(fixtures.StatefulDeployment("ns", "job", mode)).Spec
}

// deployed is a resource whose generation-1 spec is deployed and stable; mods then change it.
func deployed(mode flinkv1beta1.UpgradeMode, mods ...func(*flinkv1beta1.FlinkDeployment)) *flinkv1beta1.FlinkDeployment {
	d := &flinkv1beta1.FlinkDeployment{
		ObjectMeta: metav1.ObjectMeta{Name: "job", Namespace: "ns", UID: "uid-1", Generation: 1},
		Spec:       spec(mode),
	}
	r := newReconciledSpec(d.Spec, 1, false, restoreModeFor(d.Spec, DiffUpgrade))
	d.Status.ReconciliationStatus = flinkv1beta1.ReconciliationStatus{
		LastReconciledSpec: r.Encode(), LastStableSpec: r.Encode(), State: flinkv1beta1.ReconciliationDeployed,
	}
	d.Status.JobStatus = flinkv1beta1.JobStatus{JobID: "job-1", State: flinkv1beta1.JobStatusRunning}
	d.Status.JobManagerDeploymentStatus = flinkv1beta1.JobManagerReady
	d.Status.ObservedGeneration = 1
	for _, m := range mods {
		m(d)
	}
	return d
}

// upgrading is a deployed resource whose generation-2 spec (parallelism 4) was recorded and
// whose upgrade is in flight; mods then change its status.
func upgrading(mode flinkv1beta1.UpgradeMode, mods ...func(*flinkv1beta1.FlinkDeployment)) *flinkv1beta1.FlinkDeployment {
	return upgradingSpec(mode, func(*flinkv1beta1.FlinkDeploymentSpec) {}, mods...)
}

// upgradingSpec is upgrading with the generation-2 spec changed further by specMod.
func upgradingSpec(mode flinkv1beta1.UpgradeMode, specMod func(*flinkv1beta1.FlinkDeploymentSpec), mods ...func(*flinkv1beta1.FlinkDeployment)) *flinkv1beta1.FlinkDeployment {
	d := deployed(mode)
	p := int32(4)
	d.Spec.Job.Parallelism = &p
	d.Generation = 2
	specMod(&d.Spec)
	diff, _ := Diff(spec(mode), d.Spec)
	r := newReconciledSpec(d.Spec, 2, false, restoreModeFor(d.Spec, diff))
	r.Metadata.Redeploy = diff == DiffSavepointRedeploy
	d.Status.ReconciliationStatus.LastReconciledSpec = r.Encode()
	d.Status.ReconciliationStatus.State = flinkv1beta1.ReconciliationUpgrading
	d.Status.ObservedGeneration = 2
	for _, m := range mods {
		m(d)
	}
	return d
}

func withMeta(f func(*SpecMetadata)) func(*flinkv1beta1.FlinkDeployment) {
	return func(d *flinkv1beta1.FlinkDeployment) {
		r, _ := ParseReconciledSpec(d.Status.ReconciliationStatus.LastReconciledSpec)
		f(&r.Metadata)
		d.Status.ReconciliationStatus.LastReconciledSpec = r.Encode()
	}
}

func withUpgradePath(p string) func(*flinkv1beta1.FlinkDeployment) {
	return func(d *flinkv1beta1.FlinkDeployment) { d.Status.JobStatus.UpgradeSavepointPath = p }
}

func withTrigger(id string, t flinkv1beta1.SnapshotTriggerType) func(*flinkv1beta1.FlinkDeployment) {
	return func(d *flinkv1beta1.FlinkDeployment) {
		ts := now.UnixMilli()
		d.Status.JobStatus.SavepointInfo = &flinkv1beta1.SavepointInfo{TriggerID: id, TriggerType: t, TriggerTimestamp: &ts}
	}
}

// withLastSavepoint records a savepoint at loc that completed ago before now.
func withLastSavepoint(loc string, ago time.Duration) func(*flinkv1beta1.FlinkDeployment) {
	return func(d *flinkv1beta1.FlinkDeployment) {
		d.Status.JobStatus.SavepointInfo = &flinkv1beta1.SavepointInfo{LastSavepoint: &flinkv1beta1.Savepoint{
			Location: loc, TimeStamp: now.Add(-ago).UnixMilli(), TriggerType: flinkv1beta1.SnapshotTriggerPeriodic,
		}}
	}
}

// cluster observes a ready cluster of generation gen running a job in state.
func cluster(gen int64, state string, mods ...func(*Observation)) Observation {
	o := Observation{
		JobManager:    &DeploymentState{Generation: gen, Replicas: 1, ReadyReplicas: 1, AvailableReplicas: 1, Available: true},
		TaskManager:   &DeploymentState{Replicas: 1, Available: true},
		RESTReachable: true,
		HAMetadata:    true,
	}
	if state != "" {
		o.Job = &JobObservation{ID: "job-1", Name: "job", State: state, StartTime: 1}
	}
	for _, m := range mods {
		m(&o)
	}
	return o
}

func noHA(o *Observation) { o.HAMetadata = false }

// inProgress makes Flink list a savepoint of the observed job in progress.
func inProgress(o *Observation) { o.Job.SavepointInProgress = true }

func unreachable(o *Observation) {
	o.RESTReachable, o.RESTError, o.Job = false, "connection refused", nil
}

func checkpoint(path string, ts int64) func(*Observation) {
	return func(o *Observation) { o.Job.LatestCheckpoint = &SnapshotRef{Path: path, ID: 3, Timestamp: ts} }
}

func savepointOp(op OperationObservation) func(*Observation) {
	return func(o *Observation) { o.Savepoint = &op }
}

func missing() Observation { return Observation{HAMetadata: true} }

// oldTaskManagers observes the old cluster's TaskManager Deployment without its JobManager: a
// deletion the cache has seen half of.
func oldTaskManagers() Observation {
	return Observation{HAMetadata: true, TaskManager: &DeploymentState{Replicas: 1, Available: true}}
}

// startedAgo makes the observed job's start a while before now.
func startedAgo(ago time.Duration) func(*Observation) {
	return func(o *Observation) { o.Job.StartTime = now.Add(-ago).UnixMilli() }
}

// inputWith is input with the options changed by opts (nil: the defaults).
func inputWith(d *flinkv1beta1.FlinkDeployment, o Observation, opts func(*Input)) Input {
	in := input(d, o)
	if opts != nil {
		opts(&in)
	}
	return in
}

func input(d *flinkv1beta1.FlinkDeployment, o Observation) Input {
	opts := config.Defaults()
	return Input{Resource: d, Options: opts, Observed: o, Now: now}
}

func reconciled(st flinkv1beta1.FlinkDeploymentStatus) *ReconciledSpec {
	r, err := ParseReconciledSpec(st.ReconciliationStatus.LastReconciledSpec)
	if err != nil || r == nil {
		panic("no reconciled spec")
	}
	return r
}

func jsonRaw(s string) apiextensionsv1.JSON { return apiextensionsv1.JSON{Raw: []byte(s)} }
