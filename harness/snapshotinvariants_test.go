package harness

import (
	"context"
	"strings"
	"testing"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// snapshotWorld is a world whose savepoint job runs and whose snapshot "sp" of it completed,
// every invariant holding on the way.
func snapshotWorld(t *testing.T) (*World, *Checker, *flinkv1beta1.FlinkStateSnapshot) {
	t.Helper()
	w, err := NewWorld(3)
	if err != nil {
		t.Fatal(err)
	}
	c := NewChecker(w)
	if err := w.Apply(savepointJob()); err != nil {
		t.Fatal(err)
	}
	if v := stepUntil(t, w, c, "running", runningGen(1)); len(v) > 0 {
		t.Fatalf("violations on the way: %v", v)
	}
	sp := fixtures.Savepoint("", "sp", "job")
	if err := w.CreateSnapshot(sp); err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
		if v := c.Check("job"); len(v) > 0 {
			t.Fatalf("violations on the way: %v", v)
		}
		if s, _ := w.GetSnapshot("sp"); s.Status.State == flinkv1beta1.SnapshotCompleted {
			return w, c, s
		}
	}
	t.Fatalf("the snapshot never completed\n%s", w.Trace)
	return nil, nil, nil
}

// TestSnapshotInvariantsFireOnABrokenOperator: N1 and N2 hold for the operator and fire on
// the statuses and disposals a broken one would leave.
func TestSnapshotInvariantsFireOnABrokenOperator(t *testing.T) {
	ctx := context.Background()
	for name, tc := range map[string]struct {
		breakIt func(t *testing.T, w *World, s *flinkv1beta1.FlinkStateSnapshot)
		want    string
	}{
		"a COMPLETED snapshot without a path": {
			breakIt: func(t *testing.T, w *World, s *flinkv1beta1.FlinkStateSnapshot) {
				t.Helper()
				s.Status.Path = ""
				if err := w.Client.Status().Update(ctx, s); err != nil {
					t.Fatal(err)
				}
			},
			want: "N1: snapshot sp is COMPLETED without a path",
		},
		"a savepoint taken under a trigger id of no attempt": {
			breakIt: func(t *testing.T, w *World, s *flinkv1beta1.FlinkStateSnapshot) {
				t.Helper()
				d, _ := w.Get("job")
				var id string
				w.Cluster("job", func(cl *fakeflink.Cluster) {
					id, _ = cl.TriggerSavepoint(d.Status.JobStatus.JobID, fakeflink.SavepointRequest{TriggerID: "0123456789abcdef0123456789abcdef"})
				})
				if err := w.RunFor(clientTimeout); err != nil {
					t.Fatal(err)
				}
				var res fakeflink.OperationResult
				w.Cluster("job", func(cl *fakeflink.Cluster) {
					res, _ = cl.OperationStatus(fakeflink.OpSavepoint, d.Status.JobStatus.JobID, id)
				})
				fresh, _ := w.GetSnapshot(s.Name)
				fresh.Status.Path = res.Location
				if err := w.Client.Status().Update(ctx, fresh); err != nil {
					t.Fatal(err)
				}
			},
			want: "which is none of its 1 attempts'",
		},
		"a savepoint disposed of while the job would restore from it": {
			breakIt: func(t *testing.T, w *World, s *flinkv1beta1.FlinkStateSnapshot) {
				t.Helper()
				d, _ := w.Get("job")
				d.Status.JobStatus.UpgradeSavepointPath = s.Status.Path
				if err := w.Client.Status().Update(ctx, d); err != nil {
					t.Fatal(err)
				}
				w.Sim.Store.Delete(s.Status.Path)
			},
			want: "N2: savepoint",
		},
	} {
		t.Run(name, func(t *testing.T) {
			w, c, s := snapshotWorld(t)
			tc.breakIt(t, w, s)
			if v := strings.Join(c.Check("job"), "\n"); !strings.Contains(v, tc.want) {
				t.Errorf("violations %q, want %q", v, tc.want)
			}
		})
	}
}

// TestSnapshotDeletionKeepsWhatAJobWouldRestore: the operator does not dispose of a deleted
// snapshot's savepoint while the job would restore from it, and does once it would not.
func TestSnapshotDeletionKeepsWhatAJobWouldRestore(t *testing.T) {
	ctx := context.Background()
	w, c, s := snapshotWorld(t)
	d, _ := w.Get("job")
	d.Status.JobStatus.UpgradeSavepointPath = s.Status.Path
	if err := w.Client.Status().Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := w.DeleteSnapshot("sp"); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
		if v := c.Check("job"); len(v) > 0 {
			t.Fatalf("violations: %v", v)
		}
	}
	if _, ok := w.Sim.Store.Get(s.Status.Path); !ok {
		t.Fatalf("disposed of %s", s.Status.Path)
	}
	if _, err := w.GetSnapshot("sp"); err != nil {
		t.Fatalf("the snapshot went though its savepoint stays: %v", err)
	}
}
