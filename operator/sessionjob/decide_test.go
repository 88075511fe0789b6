package sessionjob_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/decide"
	"github.com/flinkop/flinkop/operator/sessionjob"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// job is a session job of generation gen in the given mode.
func job(mode flinkv1beta1.UpgradeMode, gen int64) *flinkv1beta1.FlinkSessionJob {
	j := fixtures.SessionJob("flink", "etl", "sess")
	j.UID, j.Generation = "uid-etl", gen
	j.Spec.Job.JarURI, j.Spec.Job.Parallelism, j.Spec.Job.UpgradeMode = "https://example.com/job.jar", nil, mode
	return j
}

// deployedAt gives j the status of its generation gen submitted as jobID and running.
func deployedAt(j *flinkv1beta1.FlinkSessionJob, gen int64, jobID string) {
	r := &sessionjob.ReconciledSpec{Spec: *j.Spec.DeepCopy()}
	r.Metadata.Metadata.Generation = gen
	r.Metadata.Restore = map[flinkv1beta1.UpgradeMode]decide.RestoreMode{
		flinkv1beta1.UpgradeModeSavepoint: decide.RestoreSavepoint, flinkv1beta1.UpgradeModeLastState: decide.RestoreHA,
	}[j.Spec.Job.UpgradeMode]
	if r.Metadata.Restore == "" {
		r.Metadata.Restore = decide.RestoreNone
	}
	rs := &j.Status.ReconciliationStatus
	rs.LastReconciledSpec, rs.LastStableSpec, rs.State = r.Encode(), r.Encode(), flinkv1beta1.ReconciliationDeployed
	j.Status.JobStatus = flinkv1beta1.JobStatus{JobID: jobID, State: "RUNNING", StartTime: "1000"}
}

// upgrading records generation 2 (parallelism 4) as the upgrade in flight.
func upgrading(j *flinkv1beta1.FlinkSessionJob) *flinkv1beta1.FlinkSessionJob {
	p := int32(4)
	j.Spec.Job.Parallelism = &p
	j.Generation = 2
	res := sessionjob.Decide(input(j, ready(running("old"))))
	j.Status = res.Status
	return j
}

func ready(job *decide.JobObservation) sessionjob.Observation {
	return sessionjob.Observation{Cluster: sessionjob.ClusterReady, RESTReachable: true, Job: job}
}

func running(id string) *decide.JobObservation {
	return &decide.JobObservation{ID: id, State: "RUNNING", StartTime: 1000}
}

// upgradeSavepointInFlight records the trigger of j's upgrade's stop-with-savepoint.
func upgradeSavepointInFlight(j *flinkv1beta1.FlinkSessionJob) *flinkv1beta1.FlinkSessionJob {
	j.Status.JobStatus.SavepointInfo = &flinkv1beta1.SavepointInfo{TriggerID: "t", TriggerType: flinkv1beta1.SnapshotTriggerUpgrade}
	return j
}

// upgradeSavepoint is the old job still running, with op what Flink says of the upgrade's
// savepoint.
func upgradeSavepoint(op decide.OperationObservation) sessionjob.Observation {
	o := ready(running("old"))
	o.Savepoint = &op
	return o
}

func withCheckpoint(o *decide.JobObservation, path string) *decide.JobObservation {
	o.LatestCheckpoint = &decide.SnapshotRef{Path: path, ID: 3, Timestamp: 5000}
	return o
}

func input(j *flinkv1beta1.FlinkSessionJob, o sessionjob.Observation) sessionjob.Input {
	return sessionjob.Input{Resource: j, Options: config.Defaults(), Observed: o, Now: now}
}

// outcome is what the table compares.
type outcome struct {
	Action     decide.ActionKind
	State      flinkv1beta1.ReconciliationState
	JobID      string
	Restore    string
	ErrorHas   string
	WarningFor string
	Released   bool
}

func summarize(res sessionjob.Result, errHas string) outcome {
	o := outcome{Action: res.Action.Kind, State: res.Status.ReconciliationStatus.State, JobID: res.Status.JobStatus.JobID, Released: res.RemoveFinalizer}
	if res.Action.Submit != nil {
		o.Restore = res.Action.Submit.RestorePath
	}
	if errHas != "" && strings.Contains(flinkv1beta1.ErrorMessage(res.Status.Error), errHas) {
		o.ErrorHas = errHas
	}
	for _, e := range res.Events {
		if e.Type == decide.Warning {
			o.WarningFor = e.Reason
		}
	}
	return o
}

func TestDecide(t *testing.T) {
	target := decide.JobIDFor("uid-etl", 2, "")
	deleted := func(j *flinkv1beta1.FlinkSessionJob) *flinkv1beta1.FlinkSessionJob {
		ts := metav1.NewTime(now)
		j.DeletionTimestamp = &ts
		return j
	}
	base := func(mode flinkv1beta1.UpgradeMode) *flinkv1beta1.FlinkSessionJob {
		j := job(mode, 1)
		deployedAt(j, 1, "old")
		return j
	}
	for _, tc := range []struct {
		name   string
		j      *flinkv1beta1.FlinkSessionJob
		obs    sessionjob.Observation
		errHas string
		want   outcome
	}{{
		name: "a new job is recorded before anything runs, even with no cluster",
		j:    job(flinkv1beta1.UpgradeModeStateless, 1), obs: sessionjob.Observation{Cluster: sessionjob.ClusterMissing},
		want: outcome{Action: decide.ActNone, State: flinkv1beta1.ReconciliationUpgrading},
	}, {
		name: "an invalid new job runs nothing",
		j: func() *flinkv1beta1.FlinkSessionJob {
			j := job(flinkv1beta1.UpgradeModeStateless, 1)
			j.Spec.Job.JarURI = "s3://bucket/job.jar"
			return j
		}(),
		obs: ready(nil), errHas: "jarURI",
		want: outcome{Action: decide.ActNone, ErrorHas: "jarURI", WarningFor: "ValidationError"},
	}, {
		name: "an upgrade waits for a session cluster that is not ready",
		j:    upgrading(base(flinkv1beta1.UpgradeModeSavepoint)), obs: sessionjob.Observation{Cluster: sessionjob.ClusterNotReady, ClusterMessage: "its JobManager is DEPLOYING"},
		errHas: "DEPLOYING",
		want:   outcome{Action: decide.ActNone, State: flinkv1beta1.ReconciliationUpgrading, JobID: "old", ErrorHas: "DEPLOYING", WarningFor: "SessionClusterNotReady"},
	}, {
		name: "a savepoint upgrade stops the running job with a savepoint",
		j:    upgrading(base(flinkv1beta1.UpgradeModeSavepoint)), obs: ready(running("old")),
		want: outcome{Action: decide.ActStopWithSavepoint, State: flinkv1beta1.ReconciliationUpgrading, JobID: "old"},
	}, {
		name: "once the old job finished, the new job id is recorded and nothing is submitted yet",
		j: func() *flinkv1beta1.FlinkSessionJob {
			j := upgrading(base(flinkv1beta1.UpgradeModeSavepoint))
			j.Status.JobStatus.UpgradeSavepointPath = "file:///sp/1"
			return j
		}(),
		obs:  ready(&decide.JobObservation{ID: "old", State: "FINISHED"}),
		want: outcome{Action: decide.ActNone, State: flinkv1beta1.ReconciliationUpgrading, JobID: target},
	}, {
		name: "with the new id recorded, the job is submitted from the savepoint",
		j: func() *flinkv1beta1.FlinkSessionJob {
			j := upgrading(base(flinkv1beta1.UpgradeModeSavepoint))
			j.Status.JobStatus.UpgradeSavepointPath, j.Status.JobStatus.JobID = "file:///sp/1", target
			return j
		}(),
		obs:  ready(nil),
		want: outcome{Action: sessionjob.ActSubmitJob, State: flinkv1beta1.ReconciliationDeployed, JobID: target, Restore: "file:///sp/1"},
	}, {
		name: "a job found under the recorded id is not submitted again",
		j: func() *flinkv1beta1.FlinkSessionJob {
			j := upgrading(base(flinkv1beta1.UpgradeModeSavepoint))
			j.Status.JobStatus.UpgradeSavepointPath, j.Status.JobStatus.JobID = "file:///sp/1", target
			return j
		}(),
		obs:  ready(running(target)),
		want: outcome{Action: decide.ActNone, State: flinkv1beta1.ReconciliationDeployed, JobID: target},
	}, {
		name: "last-state refuses while the job has no checkpoint, and the job keeps running",
		j:    upgrading(base(flinkv1beta1.UpgradeModeLastState)), obs: ready(running("old")), errHas: "has none yet",
		want: outcome{Action: decide.ActNone, State: flinkv1beta1.ReconciliationUpgrading, JobID: "old", ErrorHas: "has none yet", WarningFor: "UpgradeRefused"},
	}, {
		name: "last-state cancels a job that has a checkpoint",
		j:    upgrading(base(flinkv1beta1.UpgradeModeLastState)), obs: ready(withCheckpoint(running("old"), "file:///cp/3")),
		want: outcome{Action: decide.ActCancelJob, State: flinkv1beta1.ReconciliationUpgrading, JobID: "old"},
	}, {
		name: "a failed upgrade savepoint with no newer checkpoint keeps the job running",
		j:    upgradeSavepointInFlight(upgrading(base(flinkv1beta1.UpgradeModeSavepoint))), obs: upgradeSavepoint(decide.OperationObservation{Done: true, Failure: "disk full"}),
		errHas: "keeps running",
		want:   outcome{Action: decide.ActNone, State: flinkv1beta1.ReconciliationUpgrading, JobID: "old", ErrorHas: "keeps running", WarningFor: "UpgradeRefused"},
	}, {
		name: "a lost upgrade savepoint trigger stops the running job with a savepoint again",
		j:    upgradeSavepointInFlight(upgrading(base(flinkv1beta1.UpgradeModeSavepoint))), obs: upgradeSavepoint(decide.OperationObservation{Lost: true}),
		want: outcome{Action: decide.ActStopWithSavepoint, State: flinkv1beta1.ReconciliationUpgrading, JobID: "old", WarningFor: "SavepointError"},
	}, {
		name: "a stateful job the cluster lost is not restarted from empty state",
		j:    upgrading(base(flinkv1beta1.UpgradeModeSavepoint)), obs: ready(nil), errHas: "refusing to start the job from empty state",
		want: outcome{Action: decide.ActNone, State: flinkv1beta1.ReconciliationUpgrading, JobID: "old", ErrorHas: "refusing to start the job from empty state", WarningFor: "UpgradeRefused"},
	}, {
		name: "a running job the cluster lost is reported",
		j:    base(flinkv1beta1.UpgradeModeStateless), obs: ready(nil), errHas: "is not on session cluster sess",
		want: outcome{Action: decide.ActNone, State: flinkv1beta1.ReconciliationDeployed, JobID: "old", ErrorHas: "is not on session cluster sess", WarningFor: "JobMissing"},
	}, {
		name: "deletion cancels the running job",
		j:    deleted(base(flinkv1beta1.UpgradeModeStateless)), obs: ready(running("old")),
		want: outcome{Action: decide.ActCancelJob, State: flinkv1beta1.ReconciliationDeployed, JobID: "old"},
	}, {
		name: "deletion deletes the uploaded jars once the job ended",
		j:    deleted(base(flinkv1beta1.UpgradeModeStateless)),
		obs: func() sessionjob.Observation {
			o := ready(&decide.JobObservation{ID: "old", State: "CANCELED"})
			o.Jars = []sessionjob.Jar{{ID: "x_flinkop-1.jar", Name: "flinkop-1.jar"}}
			return o
		}(),
		want: outcome{Action: sessionjob.ActDeleteJars, State: flinkv1beta1.ReconciliationDeployed, JobID: "old"},
	}, {
		name: "deletion waits for an unreachable cluster that is not going away",
		j:    deleted(base(flinkv1beta1.UpgradeModeStateless)), obs: sessionjob.Observation{Cluster: sessionjob.ClusterReady, RESTError: "timeout"},
		errHas: "deletion waits",
		want:   outcome{Action: decide.ActNone, State: flinkv1beta1.ReconciliationDeployed, JobID: "old", ErrorHas: "deletion waits", WarningFor: "SessionClusterNotReady"},
	}, {
		name: "deletion with the cluster going and unreachable releases the finalizer",
		j:    deleted(base(flinkv1beta1.UpgradeModeStateless)), obs: sessionjob.Observation{Cluster: sessionjob.ClusterNotReady, ClusterDeleting: true},
		want: outcome{Action: decide.ActNone, State: flinkv1beta1.ReconciliationDeployed, JobID: "old", Released: true},
	}, {
		name: "deletion with the cluster gone releases the finalizer",
		j:    deleted(base(flinkv1beta1.UpgradeModeStateless)), obs: sessionjob.Observation{Cluster: sessionjob.ClusterMissing},
		want: outcome{Action: decide.ActNone, State: flinkv1beta1.ReconciliationDeployed, JobID: "old", Released: true},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			res := sessionjob.Decide(input(tc.j, tc.obs))
			if diff := cmp.Diff(tc.want, summarize(res, tc.errHas)); diff != "" {
				t.Errorf("(-want +got)\n%s\nerror: %s\nevents: %+v", diff, flinkv1beta1.ErrorMessage(res.Status.Error), res.Events)
			}
		})
	}
}

func TestJarNamesAreTheJobsOwn(t *testing.T) {
	a := sessionjob.JarName("uid-a", "0123456789abcdef", "https://example.com/x/job.jar")
	if !strings.HasPrefix(a, sessionjob.JarPrefix("uid-a")) || !strings.HasSuffix(a, "-01234567-job.jar") {
		t.Errorf("JarName = %s", a)
	}
	if strings.HasPrefix(a, sessionjob.JarPrefix("uid-b")) {
		t.Errorf("another resource's prefix matches %s", a)
	}
}
