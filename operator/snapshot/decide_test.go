package snapshot

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

var now = time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)

const (
	interval = time.Minute
	progress = 10 * time.Second
)

// savepointOf is a manual savepoint of FlinkDeployment "job", changed by mods.
func savepointOf(mods ...func(*flinkv1beta1.FlinkStateSnapshot)) *flinkv1beta1.FlinkStateSnapshot {
	s := fixtures.Savepoint("ns", "sp", "job")
	s.UID = "uid-1"
	for _, m := range mods {
		m(s)
	}
	return s
}

func checkpoint(s *flinkv1beta1.FlinkStateSnapshot) {
	s.Spec.Savepoint, s.Spec.Checkpoint = nil, &flinkv1beta1.CheckpointSpec{}
}

func inState(state flinkv1beta1.SnapshotState, mods ...func(*flinkv1beta1.FlinkStateSnapshotStatus)) func(*flinkv1beta1.FlinkStateSnapshot) {
	return func(s *flinkv1beta1.FlinkStateSnapshot) {
		s.Status.State = state
		if state == flinkv1beta1.SnapshotInProgress || state == flinkv1beta1.SnapshotCompleted {
			s.Status.TriggerID, s.Status.TriggerTimestamp = "t0", Timestamp(now.Add(-time.Minute))
		}
		if state == flinkv1beta1.SnapshotCompleted {
			s.Status.Path, s.Status.ResultTimestamp = "file:///sp/sp-1", Timestamp(now.Add(-time.Minute))
		}
		for _, m := range mods {
			m(&s.Status)
		}
	}
}

func deleted(s *flinkv1beta1.FlinkStateSnapshot) {
	t := metav1.NewTime(now)
	s.DeletionTimestamp = &t
}

// paths are namespace ns's directories in the tables: its state directories file:///sp and
// file:///cp, and s3://b, which kubernetes.operator.snapshot.allowed-path-prefixes allows.
var paths = PathRules{StateDirs: []string{"file:///sp", "file:///cp"}, AllowedPrefixes: []string{"s3://b"}}

// running is a FlinkDeployment target whose job runs on Flink 1.20 with a savepoint directory.
var running = Target{Found: true, JobID: "j1", JobState: "RUNNING", FlinkVersion: "v1_20", SavepointDir: "file:///sp"}

// outcome is the part of a Result the table compares.
type outcome struct {
	Action  Action
	Status  flinkv1beta1.FlinkStateSnapshotStatus
	Reasons []string
	Requeue time.Duration
	Remove  bool
}

func TestDecide(t *testing.T) {
	id0 := decide.TriggerID("uid-1", "snapshot", 0)
	id2 := decide.TriggerID("uid-1", "snapshot", 2)
	stamp := Timestamp(now)
	for name, tc := range map[string]struct {
		s    *flinkv1beta1.FlinkStateSnapshot
		obs  Observation
		want outcome
	}{
		"a new savepoint is triggered under an id of its own": {
			s: savepointOf(), obs: Observation{Target: running},
			want: outcome{
				Action:  Action{Kind: ActTriggerSavepoint, JobID: "j1", TriggerID: id0, TargetDirectory: "file:///sp", FormatType: "CANONICAL"},
				Status:  flinkv1beta1.FlinkStateSnapshotStatus{State: flinkv1beta1.SnapshotInProgress, TriggerID: id0, TriggerTimestamp: stamp},
				Reasons: []string{"SnapshotTriggered"}, Requeue: progress,
			},
		},
		"a savepoint path is its target directory": {
			s: savepointOf(func(s *flinkv1beta1.FlinkStateSnapshot) {
				s.Spec.Savepoint.Path, s.Spec.Savepoint.FormatType = "s3://b/sps", "NATIVE"
			}),
			obs: Observation{Target: Target{Found: true, JobID: "j1", JobState: "RUNNING", FlinkVersion: "v1_20"}},
			want: outcome{
				Action:  Action{Kind: ActTriggerSavepoint, JobID: "j1", TriggerID: id0, TargetDirectory: "s3://b/sps", FormatType: "NATIVE"},
				Status:  flinkv1beta1.FlinkStateSnapshotStatus{State: flinkv1beta1.SnapshotInProgress, TriggerID: id0, TriggerTimestamp: stamp},
				Reasons: []string{"SnapshotTriggered"}, Requeue: progress,
			},
		},
		"no savepoint directory anywhere fails the attempt, retried after 10 s": {
			s: savepointOf(), obs: Observation{Target: Target{Found: true, JobID: "j1", JobState: "RUNNING", FlinkVersion: "v1_20"}},
			want: outcome{
				Status: flinkv1beta1.FlinkStateSnapshotStatus{
					State: flinkv1beta1.SnapshotTriggerPending, Failures: 1, ResultTimestamp: stamp,
					Error: "Either the savepoint path in the spec or configuration execution.checkpointing.savepoint-dir in the Flink resource has to be supplied",
				},
				Reasons: []string{"SavepointError"}, Requeue: 10 * time.Second,
			},
		},
		"a checkpoint on Flink 1.16 fails for good with backoffLimit 0": {
			s:   savepointOf(checkpoint, func(s *flinkv1beta1.FlinkStateSnapshot) { s.Spec.BackoffLimit = new(int) }),
			obs: Observation{Target: Target{Found: true, JobID: "j1", JobState: "RUNNING", FlinkVersion: "v1_16"}},
			want: outcome{
				Status: flinkv1beta1.FlinkStateSnapshotStatus{
					State: flinkv1beta1.SnapshotFailed, Failures: 1, ResultTimestamp: stamp,
					Error: "Manual checkpoint triggering is not supported for this Flink job (requires Flink 1.17+)",
				},
				Reasons: []string{"CheckpointError"},
			},
		},
		"an existing savepoint is recorded without its job": {
			s: savepointOf(func(s *flinkv1beta1.FlinkStateSnapshot) {
				s.Spec.JobReference, s.Spec.Savepoint = nil, &flinkv1beta1.SavepointSpec{AlreadyExists: true, Path: "s3://b/sp-9"}
			}),
			want: outcome{
				Status:  flinkv1beta1.FlinkStateSnapshotStatus{State: flinkv1beta1.SnapshotCompleted, Path: "s3://b/sp-9", TriggerTimestamp: stamp, ResultTimestamp: stamp},
				Reasons: []string{"SnapshotCompleted"},
			},
		},
		"a job's record of its savepoint completes quietly (the job told of the savepoint)": {
			s: savepointOf(func(s *flinkv1beta1.FlinkStateSnapshot) {
				s.Spec.Savepoint = &flinkv1beta1.SavepointSpec{AlreadyExists: true, Path: "s3://b/sp-9"}
				s.OwnerReferences = []metav1.OwnerReference{{Kind: "FlinkDeployment", Name: "job", UID: "uid-job", Controller: ptr.To(true)}}
			}),
			want: outcome{
				Status: flinkv1beta1.FlinkStateSnapshotStatus{State: flinkv1beta1.SnapshotCompleted, Path: "s3://b/sp-9", TriggerTimestamp: stamp, ResultTimestamp: stamp},
			},
		},
		"a missing target waits, as Apache's validation does": {
			s: savepointOf(),
			want: outcome{
				Status:  flinkv1beta1.FlinkStateSnapshotStatus{State: flinkv1beta1.SnapshotTriggerPending, Error: "Target for snapshot ns/job was not found"},
				Reasons: []string{"ValidationError"}, Requeue: interval,
			},
		},
		"an invalid spec waits with its error": {
			s:   savepointOf(func(s *flinkv1beta1.FlinkStateSnapshot) { s.Spec.Checkpoint = &flinkv1beta1.CheckpointSpec{} }),
			obs: Observation{Target: running},
			want: outcome{
				Status:  flinkv1beta1.FlinkStateSnapshotStatus{State: flinkv1beta1.SnapshotTriggerPending, Error: "spec: Invalid value: \"(savepoint and checkpoint)\": Exactly one of checkpoint or savepoint configurations has to be set."},
				Reasons: []string{"ValidationError"}, Requeue: interval,
			},
		},
		"a job that does not run abandons it": {
			s: savepointOf(), obs: Observation{Target: Target{Found: true, JobID: "j1", JobState: "SUSPENDED"}},
			want: outcome{
				Status:  flinkv1beta1.FlinkStateSnapshotStatus{State: flinkv1beta1.SnapshotAbandoned, ResultTimestamp: stamp, Error: "Secondary resource job (FlinkDeployment) for savepoint sp is not running"},
				Reasons: []string{"SnapshotAbandoned"},
			},
		},
		"in progress: Flink still takes it": {
			s: savepointOf(inState(flinkv1beta1.SnapshotInProgress)), obs: Observation{Target: running, Operation: &decide.OperationObservation{}},
			want: outcome{Status: savepointOf(inState(flinkv1beta1.SnapshotInProgress)).Status, Requeue: progress},
		},
		"in progress: the JobManager does not answer": {
			s: savepointOf(inState(flinkv1beta1.SnapshotInProgress)), obs: Observation{Target: running},
			want: outcome{Status: savepointOf(inState(flinkv1beta1.SnapshotInProgress)).Status, Requeue: progress},
		},
		"in progress: the savepoint completes": {
			s:   savepointOf(inState(flinkv1beta1.SnapshotInProgress)),
			obs: Observation{Target: running, Operation: &decide.OperationObservation{Done: true, Location: "file:///sp/sp-2"}},
			want: outcome{
				Status:  flinkv1beta1.FlinkStateSnapshotStatus{State: flinkv1beta1.SnapshotCompleted, TriggerID: "t0", TriggerTimestamp: Timestamp(now.Add(-time.Minute)), Path: "file:///sp/sp-2", ResultTimestamp: stamp},
				Reasons: []string{"SnapshotCompleted"},
			},
		},
		"in progress: a savepoint reported without a path is a failed attempt": {
			s:   savepointOf(inState(flinkv1beta1.SnapshotInProgress)),
			obs: Observation{Target: running, Operation: &decide.OperationObservation{Done: true}},
			want: outcome{
				Status: flinkv1beta1.FlinkStateSnapshotStatus{
					State: flinkv1beta1.SnapshotTriggerPending, TriggerID: "t0", TriggerTimestamp: Timestamp(now.Add(-time.Minute)), Failures: 1, ResultTimestamp: stamp,
					Error: "Flink reported the snapshot completed without its path",
				},
				Reasons: []string{"SavepointError"}, Requeue: 10 * time.Second,
			},
		},
		"in progress: the checkpoint completes with its path": {
			s:   savepointOf(checkpoint, inState(flinkv1beta1.SnapshotInProgress)),
			obs: Observation{Target: running, Operation: &decide.OperationObservation{Done: true, CheckpointID: 7}, CheckpointPath: "file:///cp/chk-7"},
			want: outcome{
				Status:  flinkv1beta1.FlinkStateSnapshotStatus{State: flinkv1beta1.SnapshotCompleted, TriggerID: "t0", TriggerTimestamp: Timestamp(now.Add(-time.Minute)), Path: "file:///cp/chk-7", ResultTimestamp: stamp},
				Reasons: []string{"SnapshotCompleted"},
			},
		},
		"in progress: a checkpoint without a path is no COMPLETED one": {
			s:   savepointOf(checkpoint, inState(flinkv1beta1.SnapshotInProgress)),
			obs: Observation{Target: running, Operation: &decide.OperationObservation{Done: true, CheckpointID: 7}, CheckpointPathError: "404"},
			want: outcome{
				Status: flinkv1beta1.FlinkStateSnapshotStatus{
					State: flinkv1beta1.SnapshotTriggerPending, TriggerID: "t0", TriggerTimestamp: Timestamp(now.Add(-time.Minute)), Failures: 1, ResultTimestamp: stamp,
					Error: "Checkpoint 7 was successful, but failed to fetch its path (Flink's web server keeps only the newest checkpoints: raise web.checkpoints.history for this job): 404",
				},
				Reasons: []string{"CheckpointError"}, Requeue: 10 * time.Second,
			},
		},
		"in progress: a lost trigger is a failure": {
			s:   savepointOf(inState(flinkv1beta1.SnapshotInProgress)),
			obs: Observation{Target: running, Operation: &decide.OperationObservation{Lost: true}},
			want: outcome{
				Status: flinkv1beta1.FlinkStateSnapshotStatus{
					State: flinkv1beta1.SnapshotTriggerPending, TriggerID: "t0", TriggerTimestamp: Timestamp(now.Add(-time.Minute)), Failures: 1, ResultTimestamp: stamp,
					Error: "Flink no longer knows savepoint trigger t0 (expired, or its JobManager restarted)",
				},
				Reasons: []string{"SavepointError"}, Requeue: 10 * time.Second,
			},
		},
		"in progress: the job stopped": {
			s:   savepointOf(inState(flinkv1beta1.SnapshotInProgress)),
			obs: Observation{Target: Target{Found: true, JobID: "j1", JobState: "RESTARTING"}},
			want: outcome{
				Status: flinkv1beta1.FlinkStateSnapshotStatus{
					State: flinkv1beta1.SnapshotAbandoned, TriggerID: "t0", TriggerTimestamp: Timestamp(now.Add(-time.Minute)), ResultTimestamp: stamp,
					Error: "Secondary resource job (FlinkDeployment) for savepoint sp is not running",
				},
				Reasons: []string{"SnapshotAbandoned"},
			},
		},
		"a retry waits out its back-off": {
			s: savepointOf(inState(flinkv1beta1.SnapshotTriggerPending, func(st *flinkv1beta1.FlinkStateSnapshotStatus) {
				st.Failures, st.ResultTimestamp, st.Error = 2, Timestamp(now.Add(-5*time.Second)), "boom"
			})),
			obs:  Observation{Target: running},
			want: outcome{Status: flinkv1beta1.FlinkStateSnapshotStatus{State: flinkv1beta1.SnapshotTriggerPending, Failures: 2, ResultTimestamp: Timestamp(now.Add(-5 * time.Second)), Error: "boom"}, Requeue: 15 * time.Second},
		},
		"a retry after its back-off is a new trigger id": {
			s: savepointOf(inState(flinkv1beta1.SnapshotTriggerPending, func(st *flinkv1beta1.FlinkStateSnapshotStatus) {
				st.Failures, st.ResultTimestamp, st.Error = 2, Timestamp(now.Add(-time.Minute)), "boom"
			})),
			obs: Observation{Target: running},
			want: outcome{
				Action:  Action{Kind: ActTriggerSavepoint, JobID: "j1", TriggerID: id2, TargetDirectory: "file:///sp", FormatType: "CANONICAL"},
				Status:  flinkv1beta1.FlinkStateSnapshotStatus{State: flinkv1beta1.SnapshotInProgress, TriggerID: id2, TriggerTimestamp: stamp, Failures: 2, ResultTimestamp: Timestamp(now.Add(-time.Minute)), Error: "boom"},
				Reasons: []string{"SnapshotTriggered"}, Requeue: progress,
			},
		},
		"terminal states rest": {
			s: savepointOf(inState(flinkv1beta1.SnapshotCompleted)), obs: Observation{Target: running},
			want: outcome{Status: savepointOf(inState(flinkv1beta1.SnapshotCompleted)).Status},
		},
	} {
		t.Run(name, func(t *testing.T) { checkDecide(t, tc.s, tc.obs, tc.want) })
	}
}

// checkDecide decides s on obs and compares the outcome with want.
func checkDecide(t *testing.T, s *flinkv1beta1.FlinkStateSnapshot, obs Observation, want outcome) {
	t.Helper()
	checkDecideWith(t, s, obs, paths, want)
}

// checkDecideWith is checkDecide for a namespace with rules p.
func checkDecideWith(t *testing.T, s *flinkv1beta1.FlinkStateSnapshot, obs Observation, p PathRules, want outcome) {
	t.Helper()
	res := Decide(Input{Resource: s, Observed: obs, Now: now, ReconcileInterval: interval, ProgressInterval: progress, Paths: p})
	got := outcome{Action: res.Action, Status: res.Status, Requeue: res.RequeueAfter, Remove: res.RemoveFinalizer}
	for _, e := range res.Events {
		got.Reasons = append(got.Reasons, e.Reason)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestLabels: Apache's labels, kept up to date with the state; a trigger type already set
// stays, and the job reference is labelled once found.
func TestLabels(t *testing.T) {
	s := savepointOf(func(s *flinkv1beta1.FlinkStateSnapshot) {
		s.Labels = map[string]string{LabelTriggerType: "PERIODIC", "team": "a"}
	})
	res := Decide(Input{Resource: s, Observed: Observation{Target: running}, Now: now, ReconcileInterval: interval, ProgressInterval: progress})
	want := map[string]string{
		"team": "a", LabelTriggerType: "PERIODIC", LabelType: "SAVEPOINT", LabelState: "IN_PROGRESS",
		LabelJobKind: "FlinkDeployment", LabelJobName: "job",
	}
	if diff := cmp.Diff(want, res.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	long := savepointOf(func(s *flinkv1beta1.FlinkStateSnapshot) { s.Spec.JobReference.Name = strings.Repeat("a", 64) })
	if l := Decide(Input{Resource: long, Observed: Observation{Target: running}, Now: now}).Labels; l[LabelJobName] != "" {
		t.Errorf("a job name longer than a label value may be was labelled: %q", l[LabelJobName])
	}
	s.Labels, s.Status = want, res.Status
	if again := Decide(Input{Resource: s, Observed: Observation{Target: running, Operation: &decide.OperationObservation{}}, Now: now, ProgressInterval: progress}); again.Labels != nil {
		t.Errorf("labels rewritten though unchanged: %v", again.Labels)
	}
}

// TestRetryDelay: 10 s doubling per failure, at most 5 minutes.
func TestRetryDelay(t *testing.T) {
	var got []time.Duration
	for n := 1; n <= 7; n++ {
		got = append(got, RetryDelay(n))
	}
	want := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 160 * time.Second, 5 * time.Minute, 5 * time.Minute}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestTimestamp: Apache's ISO-8601 UTC form.
func TestTimestamp(t *testing.T) {
	got := []string{Timestamp(now), Timestamp(now.Add(1500 * time.Millisecond)), Timestamp(now.In(time.FixedZone("x", 3600)).Add(time.Microsecond))}
	want := []string{"2026-06-01T10:00:00Z", "2026-06-01T10:00:01.500Z", "2026-06-01T10:00:00Z"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
