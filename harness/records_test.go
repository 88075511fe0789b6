package harness

import (
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/snapshot"
)

// recordedJob is savepointJob with a periodic savepoint every minute and a history of two.
func recordedJob() *flinkv1beta1.FlinkDeployment {
	d := savepointJob()
	d.Spec.FlinkConfiguration = flinkv1beta1.NewFlinkConfiguration(map[string]string{
		"taskmanager.numberOfTaskSlots": "2", "execution.checkpointing.interval": "10s",
		"state.checkpoints.dir": "file:///data/cp", "state.savepoints.dir": "file:///data/sp",
		"kubernetes.operator.periodic.savepoint.interval": "1m",
		"kubernetes.operator.savepoint.history.max.count": "2",
	})
	return d
}

// records returns the live FlinkStateSnapshots the operator keeps for job's savepoints.
func records(t *testing.T, w *World) []flinkv1beta1.FlinkStateSnapshot {
	t.Helper()
	snaps, err := w.Snapshots()
	if err != nil {
		t.Fatal(err)
	}
	var out []flinkv1beta1.FlinkStateSnapshot
	for _, s := range snaps {
		if ref := metav1.GetControllerOf(&s); ref != nil && ref.Name == "job" && s.DeletionTimestamp == nil {
			out = append(out, s)
		}
	}
	return out
}

// TestSavepointsAreRecordedAsSnapshots: with snapshot resources on (the default), each periodic
// savepoint is recorded as a COMPLETED FlinkStateSnapshot the job controls; the history limit
// trims the records with the history, and the job's deletion takes the rest. With the option
// off, nothing is recorded.
func TestSavepointsAreRecordedAsSnapshots(t *testing.T) {
	for _, enabled := range []bool{true, false} {
		w, c := sixMinutesOfPeriodicSavepoints(t, enabled)
		d, _ := w.Get("job")
		history := d.Status.JobStatus.SavepointInfo.SavepointHistory
		recs := records(t, w)
		if !enabled {
			if len(recs) != 0 {
				t.Fatalf("snapshot resources off, yet %d records", len(recs))
			}
			continue
		}
		if len(history) != 2 || len(recs) != 2 {
			t.Fatalf("want 2 savepoints in the history and 2 records, have %d and %d\n%s", len(history), len(recs), w.Trace)
		}
		for _, r := range recs {
			checkRecord(t, r, history)
		}
		if err := w.Delete("job"); err != nil {
			t.Fatal(err)
		}
		if err := c.StepUntil(w.Now().Add(10*time.Minute), func() bool { left, _ := w.Snapshots(); return len(left) == 0 }); err != nil {
			t.Fatal(err)
		}
		if left, _ := w.Snapshots(); len(left) != 0 {
			t.Fatalf("%d snapshots left after the job's deletion", len(left))
		}
	}
}

// sixMinutesOfPeriodicSavepoints runs recordedJob for six minutes (and until its records
// completed), checking the invariants on the way.
func sixMinutesOfPeriodicSavepoints(t *testing.T, enabled bool) (*World, *Checker) {
	t.Helper()
	w, err := NewWorld(5)
	if err != nil {
		t.Fatal(err)
	}
	w.Options.SnapshotResources = enabled
	w.RestartOperator()
	c := NewChecker(w)
	if err := w.Apply(recordedJob()); err != nil {
		t.Fatal(err)
	}
	if v := stepUntil(t, w, c, "running", runningGen(1)); len(v) > 0 {
		t.Fatalf("violations on the way: %v", v)
	}
	if err := c.StepUntil(w.Now().Add(6*time.Minute), nil, "job"); err != nil {
		t.Fatalf("%v\n%s", err, w.Trace)
	}
	if err := c.StepUntil(w.Now().Add(time.Minute), func() bool { return allCompleted(records(t, w)) }, "job"); err != nil {
		t.Fatalf("%v\n%s", err, w.Trace)
	}
	return w, c
}

// checkRecord checks one record of a periodic savepoint against the job's history.
func checkRecord(t *testing.T, r flinkv1beta1.FlinkStateSnapshot, history []flinkv1beta1.Savepoint) {
	t.Helper()
	if r.Status.State != flinkv1beta1.SnapshotCompleted || r.Labels[snapshot.LabelTriggerType] != "PERIODIC" ||
		!strings.Contains(r.Name, "-savepoint-periodic-") || r.Spec.Savepoint.EffectiveDisposeOnDelete() {
		t.Errorf("record %s: state %s, labels %v, disposeOnDelete %v", r.Name, r.Status.State, r.Labels, r.Spec.Savepoint.EffectiveDisposeOnDelete())
	}
	if !slices.ContainsFunc(history, func(sp flinkv1beta1.Savepoint) bool { return sp.Location == r.Status.Path }) {
		t.Errorf("record %s shows %s, which is not in the history %v", r.Name, r.Status.Path, history)
	}
}

// TestRecordOutlivingItsSavepointFires: N3 fires on a record whose savepoint was disposed of
// while the record stayed, as an operator that disposed of trimmed savepoints before deleting
// their records would leave it.
func TestRecordOutlivingItsSavepointFires(t *testing.T) {
	w, err := NewWorld(5)
	if err != nil {
		t.Fatal(err)
	}
	c := NewChecker(w)
	if err := w.Apply(recordedJob()); err != nil {
		t.Fatal(err)
	}
	stepUntil(t, w, c, "running", runningGen(1))
	if err := c.StepUntil(w.Now().Add(2*time.Minute), func() bool { r := records(t, w); return len(r) > 0 && allCompleted(r) }, "job"); err != nil {
		t.Fatal(err)
	}
	recs := records(t, w)
	if len(recs) == 0 {
		t.Fatal("no record")
	}
	if v := c.Check("job"); len(v) > 0 {
		t.Fatalf("violations before the break: %v", v)
	}
	w.Sim.Store.Delete(recs[0].Status.Path)
	v := strings.Join(c.Check("job"), "\n")
	if !strings.Contains(v, "N3: record "+recs[0].Name) {
		t.Fatalf("N3 did not fire: %q", v)
	}
}

// allCompleted reports whether every snapshot of snaps is COMPLETED.
func allCompleted(snaps []flinkv1beta1.FlinkStateSnapshot) bool {
	return !slices.ContainsFunc(snaps, func(s flinkv1beta1.FlinkStateSnapshot) bool { return s.Status.State != flinkv1beta1.SnapshotCompleted })
}

// TestATakenSavepointBecomesTheJobsLast: a savepoint a user's FlinkStateSnapshot took of the
// job becomes the job's last savepoint (what a restart without HA metadata restores), so the
// snapshot's deletion does not dispose of it while the job would restore from it.
func TestATakenSavepointBecomesTheJobsLast(t *testing.T) {
	w, c, s := snapshotWorld(t)
	if err := c.StepUntil(w.Now().Add(2*time.Minute), func() bool {
		d, _ := w.Get("job")
		sp := d.Status.JobStatus.SavepointInfo
		return sp != nil && sp.LastSavepoint != nil && sp.LastSavepoint.Location == s.Status.Path
	}, "job"); err != nil {
		t.Fatal(err)
	}
	d, _ := w.Get("job")
	if sp := d.Status.JobStatus.SavepointInfo; sp == nil || sp.LastSavepoint == nil || sp.LastSavepoint.Location != s.Status.Path {
		t.Fatalf("the job's last savepoint is %+v, want the snapshot's %s\n%s", sp, s.Status.Path, w.Trace)
	}
	if err := w.DeleteSnapshot(s.Name); err != nil {
		t.Fatal(err)
	}
	if err := c.StepUntil(w.Now().Add(2*time.Minute), nil, "job"); err != nil {
		t.Fatal(err)
	}
	if _, stored := w.Sim.Store.Get(s.Status.Path); !stored {
		t.Fatal("the job's last savepoint was disposed of")
	}
	if held, err := w.GetSnapshot(s.Name); err != nil || held.DeletionTimestamp == nil {
		t.Fatalf("the snapshot is not held while the job would restore from it: %v %+v", err, held)
	}
}
