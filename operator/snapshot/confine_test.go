package snapshot

import (
	"testing"

	"k8s.io/utils/ptr"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// existing records the savepoint at path (alreadyExists).
func existing(path string) func(*flinkv1beta1.FlinkStateSnapshot) {
	return func(s *flinkv1beta1.FlinkStateSnapshot) {
		s.Spec.Savepoint.AlreadyExists, s.Spec.Savepoint.Path = true, path
	}
}

// completedAt is a COMPLETED snapshot at path.
func completedAt(path string) func(*flinkv1beta1.FlinkStateSnapshot) {
	return inState(flinkv1beta1.SnapshotCompleted, func(st *flinkv1beta1.FlinkStateSnapshotStatus) { st.Path = path })
}

// outside is the refusal of a path outside namespace ns's directories, after what.
func outside(what, path string) string {
	return what + path + " is not below a state directory of namespace ns (state.savepoints.dir or state.checkpoints.dir in the operator's configuration for it, or their Flink 2 names) nor below a prefix kubernetes.operator.snapshot.allowed-path-prefixes allows"
}

const keep = " (set spec.savepoint.disposeOnDelete to false to delete the snapshot and keep the savepoint)"

// TestDecideConfinesPaths: a snapshot records, takes and disposes of savepoints only below its
// namespace's directories (paths, in the tables: file:///sp, file:///cp and s3://b); a refusal
// says why, with the option that would allow it, and keeps the finalizer of a disposal.
func TestDecideConfinesPaths(t *testing.T) {
	stamp := Timestamp(now)
	refusedDisposal := func(path, why string) outcome {
		return outcome{
			Status:  savepointOf(completedAt(path), func(s *flinkv1beta1.FlinkStateSnapshot) { s.Status.Error = why }).Status,
			Reasons: []string{"CleanupFailed"}, Requeue: interval,
		}
	}
	for name, tc := range map[string]struct {
		s     *flinkv1beta1.FlinkStateSnapshot
		paths PathRules
		want  outcome
	}{
		"an existing savepoint of another namespace is not recorded": {
			s: savepointOf(existing("file:///other-ns/sp/savepoint-1")), paths: paths,
			want: outcome{
				Status:  flinkv1beta1.FlinkStateSnapshotStatus{State: flinkv1beta1.SnapshotTriggerPending, Error: outside("Not recording the existing savepoint: ", "file:///other-ns/sp/savepoint-1")},
				Reasons: []string{"ValidationError"}, Requeue: interval,
			},
		},
		"an existing savepoint climbing out of a state directory is not recorded": {
			s: savepointOf(existing("file:///sp/../other-ns/savepoint-1")), paths: paths,
			want: outcome{
				Status:  flinkv1beta1.FlinkStateSnapshotStatus{State: flinkv1beta1.SnapshotTriggerPending, Error: outside("Not recording the existing savepoint: ", "file:///sp/../other-ns/savepoint-1")},
				Reasons: []string{"ValidationError"}, Requeue: interval,
			},
		},
		"a record never disposed of is not judged (the operator's own records)": {
			s: savepointOf(existing("file:///other-ns/sp/savepoint-1"), func(s *flinkv1beta1.FlinkStateSnapshot) {
				s.Spec.Savepoint.DisposeOnDelete = ptr.To(false)
			}),
			paths: paths,
			want: outcome{
				Status:  flinkv1beta1.FlinkStateSnapshotStatus{State: flinkv1beta1.SnapshotCompleted, Path: "file:///other-ns/sp/savepoint-1", TriggerTimestamp: stamp, ResultTimestamp: stamp},
				Reasons: []string{"SnapshotCompleted"},
			},
		},
		"an existing savepoint below a state directory is recorded": {
			s: savepointOf(existing("file:///sp//savepoint-1")), paths: paths,
			want: outcome{
				Status:  flinkv1beta1.FlinkStateSnapshotStatus{State: flinkv1beta1.SnapshotCompleted, Path: "file:///sp//savepoint-1", TriggerTimestamp: stamp, ResultTimestamp: stamp},
				Reasons: []string{"SnapshotCompleted"},
			},
		},
		"a savepoint is not taken to a directory outside": {
			s:     savepointOf(func(s *flinkv1beta1.FlinkStateSnapshot) { s.Spec.Savepoint.Path = "s3://other/sp" }),
			paths: paths,
			want: outcome{
				Status:  flinkv1beta1.FlinkStateSnapshotStatus{State: flinkv1beta1.SnapshotTriggerPending, Error: "Not taking a savepoint to spec.savepoint.path: s3://other/sp is not at or below a state directory of namespace ns (state.savepoints.dir or state.checkpoints.dir in the operator's configuration for it, or their Flink 2 names) nor at or below a prefix kubernetes.operator.snapshot.allowed-path-prefixes allows"},
				Reasons: []string{"ValidationError"}, Requeue: interval,
			},
		},
		"a savepoint outside is not disposed of, and its finalizer stays": {
			s: savepointOf(completedAt("file:///other-ns/sp/savepoint-1"), deleted), paths: paths,
			want: refusedDisposal("file:///other-ns/sp/savepoint-1", outside("Not disposing of the savepoint: ", "file:///other-ns/sp/savepoint-1")+keep),
		},
		"no state directories and no option: nothing is disposed of": {
			s:    savepointOf(completedAt("file:///sp/sp-1"), deleted),
			want: refusedDisposal("file:///sp/sp-1", outside("Not disposing of the savepoint: ", "file:///sp/sp-1")+keep),
		},
		"a whole state directory is not disposed of": {
			s: savepointOf(completedAt("file:///sp/"), deleted), paths: paths,
			want: refusedDisposal("file:///sp/", outside("Not disposing of the savepoint: ", "file:///sp/")+keep),
		},
		"* allows any path, disposed of in its canonical spelling": {
			s: savepointOf(completedAt("file:///etc//x/"), deleted), paths: PathRules{AllowedPrefixes: []string{"*"}},
			want: outcome{
				Action: Action{Kind: ActDispose, Path: "file:///etc/x"}, Status: savepointOf(completedAt("file:///etc//x/")).Status,
				Reasons: []string{"SnapshotDisposed"}, Remove: true,
			},
		},
		"{{namespace}} allows the snapshot's own namespace": {
			s: savepointOf(completedAt("s3://tenants/ns/sp-1"), deleted), paths: PathRules{AllowedPrefixes: []string{"s3://tenants/{{namespace}}"}},
			want: outcome{
				Action: Action{Kind: ActDispose, Path: "s3://tenants/ns/sp-1"}, Status: savepointOf(completedAt("s3://tenants/ns/sp-1")).Status,
				Reasons: []string{"SnapshotDisposed"}, Remove: true,
			},
		},
		"{{namespace}} is on a segment boundary": {
			s: savepointOf(completedAt("s3://tenants/ns1/sp-1"), deleted), paths: PathRules{AllowedPrefixes: []string{"s3://tenants/{{namespace}}"}},
			want: refusedDisposal("s3://tenants/ns1/sp-1", outside("Not disposing of the savepoint: ", "s3://tenants/ns1/sp-1")+keep),
		},
	} {
		t.Run(name, func(t *testing.T) {
			checkDecideWith(t, tc.s, Observation{Target: running}, tc.paths, tc.want)
		})
	}
}
