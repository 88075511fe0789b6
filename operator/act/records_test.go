package act

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

// TestWriteRecords: a completed savepoint becomes a COMPLETED-to-be record the job controls
// (writing it again changes nothing); a trimmed one's record goes; a snapshot of the same name
// that the job does not control is neither changed nor deleted.
func TestWriteRecords(t *testing.T) {
	ctx := context.Background()
	owner := &flinkv1beta1.FlinkDeployment{ObjectMeta: metav1.ObjectMeta{Name: "orders", Namespace: "ns", UID: "uid-orders"}}
	periodic := flinkv1beta1.Savepoint{Location: "s3://b/sp/savepoint-1", TriggerType: flinkv1beta1.SnapshotTriggerPeriodic, FormatType: "NATIVE"}
	upgrade := flinkv1beta1.Savepoint{Location: "s3://b/sp/savepoint-2", TriggerType: flinkv1beta1.SnapshotTriggerUpgrade}
	foreign := &flinkv1beta1.FlinkStateSnapshot{
		ObjectMeta: metav1.ObjectMeta{Name: RecordName("orders", upgrade), Namespace: "ns"},
		Spec:       flinkv1beta1.FlinkStateSnapshotSpec{Savepoint: &flinkv1beta1.SavepointSpec{Path: "s3://elsewhere", AlreadyExists: true}},
	}

	scheme := runtime.NewScheme()
	if err := flinkv1beta1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(foreign).Build()
	for range 2 { // the second time, as after a lost status write
		if err := WriteRecords(ctx, c, owner, flinkv1beta1.JobKindDeployment, decide.Records{Create: []flinkv1beta1.Savepoint{periodic}}); err != nil {
			t.Fatal(err)
		}
	}
	var got flinkv1beta1.FlinkStateSnapshot
	if err := c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: RecordName("orders", periodic)}, &got); err != nil {
		t.Fatal(err)
	}
	want := flinkv1beta1.FlinkStateSnapshotSpec{
		JobReference: &flinkv1beta1.JobReference{Kind: flinkv1beta1.JobKindDeployment, Name: "orders"},
		Savepoint:    &flinkv1beta1.SavepointSpec{Path: periodic.Location, FormatType: "NATIVE", DisposeOnDelete: ptr.To(false), AlreadyExists: true},
	}
	if diff := cmp.Diff(want, got.Spec); diff != "" {
		t.Errorf("record spec (-want +got):\n%s", diff)
	}
	if !metav1.IsControlledBy(&got, owner) || got.Labels["snapshot.trigger-type"] != "PERIODIC" {
		t.Errorf("record owners %v, labels %v", got.OwnerReferences, got.Labels)
	}
	if errs := got.Validate(); len(errs) > 0 {
		t.Errorf("a record fails validation: %v", errs)
	}

	trim := decide.Records{Delete: []flinkv1beta1.Savepoint{periodic, upgrade}}
	if err := WriteRecords(ctx, c, owner, flinkv1beta1.JobKindDeployment, trim); err != nil {
		t.Fatal(err)
	}
	var list flinkv1beta1.FlinkStateSnapshotList
	if err := c.List(ctx, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Spec.Savepoint.Path != "s3://elsewhere" {
		t.Fatalf("left %+v; want only the snapshot the job does not control", list.Items)
	}
}

// TestRecordNameIsBounded: a long job name still gives a valid name, unique per savepoint.
func TestRecordNameIsBounded(t *testing.T) {
	long := strings.Repeat("a", 253)
	a := RecordName(long, flinkv1beta1.Savepoint{Location: "s3://b/1", TriggerType: flinkv1beta1.SnapshotTriggerManual})
	b := RecordName(long, flinkv1beta1.Savepoint{Location: "s3://b/2", TriggerType: flinkv1beta1.SnapshotTriggerManual})
	if len(a) > 253 || a == b {
		t.Fatalf("names %q (%d) and %q", a, len(a), b)
	}
}
