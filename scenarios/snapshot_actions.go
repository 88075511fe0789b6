package scenarios

import (
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"pgregory.net/rapid"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// snapshot creates a FlinkStateSnapshot of the machine's job (whether or not it exists or
// runs): a savepoint (to the default directory or its own, disposed of on deletion or not) or
// a checkpoint, with a random back-off limit.
func (m *machine) snapshot(t *rapid.T) {
	m.snapshots++
	s := &flinkv1beta1.FlinkStateSnapshot{Spec: flinkv1beta1.FlinkStateSnapshotSpec{
		JobReference: &flinkv1beta1.JobReference{Kind: flinkv1beta1.JobKindDeployment, Name: resource},
	}}
	s.Name = snapshotName(m.snapshots)
	if limit := rapid.IntRange(-1, 2).Draw(t, "backoffLimit"); limit != -1 {
		s.Spec.BackoffLimit = &limit
	}
	if rapid.IntRange(0, 3).Draw(t, "kind") == 0 {
		s.Spec.Checkpoint = &flinkv1beta1.CheckpointSpec{}
	} else {
		dispose := rapid.Bool().Draw(t, "disposeOnDelete")
		s.Spec.Savepoint = &flinkv1beta1.SavepointSpec{DisposeOnDelete: &dispose}
		if rapid.Bool().Draw(t, "ownDirectory") {
			s.Spec.Savepoint.Path = "file:///data/manual"
		}
	}
	if err := m.w.CreateSnapshot(s); err != nil {
		t.Fatalf("create snapshot: %v", err)
	}
	m.run(t, rapid.SampledFrom([]time.Duration{time.Second, 10 * time.Second}).Draw(t, "wait"))
}

// deleteSnapshot deletes one of the snapshots created so far.
func (m *machine) deleteSnapshot(t *rapid.T) { m.deleteOneSnapshot(t, m.snapshots) }

// snapshotName is the name of the i-th FlinkStateSnapshot a machine creates.
func snapshotName(i int) string { return fmt.Sprintf("snap-%d", i) }

// deleteOneSnapshot deletes one of the count snapshots a machine created (one it deleted
// already is gone: NotFound), and lets 10 seconds pass.
func (c checked) deleteOneSnapshot(t *rapid.T, count int) {
	if count == 0 {
		t.Skip("no snapshot")
	}
	name := snapshotName(rapid.IntRange(1, count).Draw(t, "which"))
	if err := c.w.DeleteSnapshot(name); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("delete snapshot: %v", err)
	}
	c.run(t, 10*time.Second)
}
