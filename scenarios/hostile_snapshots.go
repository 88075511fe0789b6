package scenarios

import (
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"pgregory.net/rapid"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// hostileSnapshot creates a FlinkStateSnapshot whose every field a tenant may set to anything:
// its job reference (the machine's deployment, its session job, nothing, a name no resource
// has or no name may be, a kind of neither), savepoint or checkpoint or both or neither, an
// existing savepoint, paths with credentials, control characters or over any bound, and
// back-off limits past their range.
func (m *hostileMachine) hostileSnapshot(t *rapid.T) {
	m.snapshots++
	s := &flinkv1beta1.FlinkStateSnapshot{}
	s.Name = snapshotName(m.snapshots)
	if ref := pick(t, "reference", "deployment", "sessionjob", "none", "missing", "bad-name", "bad-kind"); ref != "none" {
		r := &flinkv1beta1.JobReference{Kind: flinkv1beta1.JobKindDeployment, Name: m.name}
		switch ref {
		case "sessionjob":
			r.Kind, r.Name = flinkv1beta1.JobKindSessionJob, sessionJobName
		case "missing":
			r.Name = "nobody"
		case "bad-name":
			r.Name = pick(t, "refName", "../x", strings.Repeat("a", 300), "UPPER", "a/b")
		case "bad-kind":
			r.Kind = flinkv1beta1.JobKind(pick(t, "refKind", "", "Pod", "flinkdeployment"))
		}
		s.Spec.JobReference = r
	}
	kind := pick(t, "kind", "savepoint", "savepoint", "checkpoint", "both", "neither")
	if kind == "savepoint" || kind == "both" {
		dispose := rapid.Bool().Draw(t, "disposeOnDelete")
		s.Spec.Savepoint = &flinkv1beta1.SavepointSpec{
			Path: pick(t, "path", "", "", "file:///data/manual", "s3://key:secret@bucket/sp", "/sp\nINJECTED", "/"+strings.Repeat("p", 5000),
				"file:///data/sp/savepoint-000000-000000000000", "file:///etc"),
			AlreadyExists:   rapid.IntRange(0, 3).Draw(t, "alreadyExists") == 0,
			DisposeOnDelete: &dispose,
			FormatType:      flinkv1beta1.SavepointFormatType(pick(t, "format", "", "NATIVE", "UNKNOWN", "BOGUS")),
		}
	}
	if kind == "checkpoint" || kind == "both" {
		s.Spec.Checkpoint = &flinkv1beta1.CheckpointSpec{}
	}
	if limit := pick(t, "backoffLimit", 99, -1, 0, 2, -7, 1<<30); limit != 99 {
		s.Spec.BackoffLimit = &limit
	}
	m.w.Trace.Add(m.w.Now(), "spec", "snapshot/"+s.Name, fmt.Sprintf("created: %s %s", kind, describeValue(fmt.Sprintf("%+v", s.Spec))))
	if err := m.w.CreateSnapshot(s); err != nil && !apierrors.IsInvalid(err) {
		t.Fatalf("create snapshot: %v", err)
	}
	m.run(t, rapid.SampledFrom([]time.Duration{time.Second, 10 * time.Second, time.Minute}).Draw(t, "wait"))
}

// snapshotsSettled reports the snapshots that, after Settle, neither ended (COMPLETED,
// FAILED, ABANDONED) nor say in status.error why they wait; and a COMPLETED one whose path
// the operator should have refused.
func (m *hostileMachine) snapshotsSettled() []string {
	snaps, err := m.w.Snapshots()
	if err != nil {
		return []string{"list snapshots: " + err.Error()}
	}
	var out []string
	for _, s := range snaps {
		st := s.Status
		switch st.State {
		case flinkv1beta1.SnapshotCompleted:
			if len(st.Path) > flinkv1beta1.MaxSnapshotPathLength || strings.ContainsAny(st.Path, "\n@") {
				out = append(out, fmt.Sprintf("snapshot %s COMPLETED at a path it should have refused: %.80q", s.Name, st.Path))
			}
		case flinkv1beta1.SnapshotFailed, flinkv1beta1.SnapshotAbandoned:
		default:
			if st.Error == "" && s.DeletionTimestamp == nil {
				out = append(out, fmt.Sprintf("snapshot %s is %q after %s without saying why", s.Name, st.State, Settle))
			}
		}
	}
	return out
}
