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
