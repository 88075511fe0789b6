package decide

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestCompletedSavepointsAreRecorded: a savepoint that completes is to be recorded, with its
// trigger type; a failed or pending one is not, nor the savepoint a deleted job stops with
// (its records go with it).
func TestCompletedSavepointsAreRecorded(t *testing.T) {
	done := OperationObservation{Done: true, Location: "file:///sp/savepoint-1"}
	cases := map[string]struct {
		d    *flinkv1beta1.FlinkDeployment
		o    Observation
		opts func(*Input)
		want []flinkv1beta1.Savepoint
	}{
		"a periodic savepoint completes": {
			d: deployed(sp, withTrigger("p-1", flinkv1beta1.SnapshotTriggerPeriodic)),
			o: cluster(1, "RUNNING", savepointOp(done)),
			want: []flinkv1beta1.Savepoint{{
				TimeStamp: now.UnixMilli(), Location: done.Location, TriggerType: flinkv1beta1.SnapshotTriggerPeriodic,
			}},
		},
		"a manual savepoint completes": {
			d: deployed(sp, withTrigger("m-1", flinkv1beta1.SnapshotTriggerManual)),
			o: cluster(1, "RUNNING", savepointOp(done)),
			want: []flinkv1beta1.Savepoint{{
				TimeStamp: now.UnixMilli(), Location: done.Location, TriggerType: flinkv1beta1.SnapshotTriggerManual,
			}},
		},
		"still pending": {
			d: deployed(sp, withTrigger("p-1", flinkv1beta1.SnapshotTriggerPeriodic)),
			o: cluster(1, "RUNNING", savepointOp(OperationObservation{})),
		},
		"failed": {
			d: deployed(sp, withTrigger("p-1", flinkv1beta1.SnapshotTriggerPeriodic)),
			o: cluster(1, "RUNNING", savepointOp(OperationObservation{Done: true, Failure: "disk full"})),
		},
		"the savepoint a deleted job stops with": {
			d: deployed(sp, withTrigger("d-1", flinkv1beta1.SnapshotTriggerUpgrade), func(d *flinkv1beta1.FlinkDeployment) {
				d.DeletionTimestamp = &metav1.Time{Time: now.Add(-time.Minute)}
			}),
			o:    cluster(1, "RUNNING", savepointOp(done)),
			opts: func(in *Input) { in.Options.SavepointOnDeletion = true },
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Decide(inputWith(tc.d, tc.o, tc.opts))
			if diff := cmp.Diff(tc.want, got.Records.Create); diff != "" {
				t.Errorf("records to create (-want +got):\n%s", diff)
			}
			last := got.Status.JobStatus.SavepointInfo.LastSavepoint
			if completed := last != nil && last.Location == done.Location; completed != (tc.o.Savepoint.Done && tc.o.Savepoint.Failure == "") {
				t.Errorf("last savepoint %+v: the savepoint's completion is not what the case is about", last)
			}
		})
	}
}

// TestAdoptTaken: the newest savepoint a FlinkStateSnapshot took becomes the job's last
// savepoint when it is newer than the one recorded, not when older or the same, and not while
// a savepoint of the job's own is in flight; it does not enter the history.
func TestAdoptTaken(t *testing.T) {
	taken := &TakenSavepoint{Name: "before-migration", Path: "s3://b/sp-user", Time: now.UnixMilli()}
	last := func(loc string, ago time.Duration) *flinkv1beta1.SavepointInfo {
		return &flinkv1beta1.SavepointInfo{LastSavepoint: &flinkv1beta1.Savepoint{Location: loc, TimeStamp: now.Add(-ago).UnixMilli()}}
	}
	for name, tc := range map[string]struct {
		info *flinkv1beta1.SavepointInfo
		want bool
	}{
		"no savepoint recorded":                  {want: true},
		"newer than the last savepoint":          {info: last("s3://b/sp-1", time.Hour), want: true},
		"older than the last savepoint":          {info: last("s3://b/sp-2", -time.Minute)},
		"already the last savepoint":             {info: last("s3://b/sp-user", time.Hour)},
		"a savepoint of the job's own in flight": {info: &flinkv1beta1.SavepointInfo{TriggerID: "t"}},
	} {
		t.Run(name, func(t *testing.T) {
			js := &flinkv1beta1.JobStatus{SavepointInfo: tc.info}
			var events []Event
			got := Book{JS: js, Now: now, Events: &events}.AdoptTaken(taken)
			if got != tc.want {
				t.Fatalf("adopted %v, want %v", got, tc.want)
			}
			if !got {
				return
			}
			if sp := js.SavepointInfo; sp.LastSavepoint.Location != taken.Path || len(sp.SavepointHistory) != 0 || !WouldRestoreFrom(js, taken.Path) || len(events) != 1 {
				t.Errorf("savepoint info %+v, events %v", sp, events)
			}
		})
	}
}
