package harness

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// periodicFleet is a world of four deployments that take a savepoint every minute, all started
// at once, with the operator bounded to limit snapshots in flight (built with bounded: the
// broken variant is an operator without the bound in a world that checks it).
func periodicFleet(t *testing.T, limit int, bounded bool) (*World, *Checker, []string) {
	t.Helper()
	w, err := NewWorld(11)
	if err != nil {
		t.Fatal(err)
	}
	if bounded {
		w.SnapshotMaxConcurrent = limit
	}
	w.RestartOperator()
	w.SnapshotMaxConcurrent = limit
	var names []string
	for i := range 4 {
		d := recordedJob()
		d.Name = fmt.Sprintf("job-%d", i)
		names = append(names, d.Name)
		if err := w.Apply(d); err != nil {
			t.Fatal(err)
		}
	}
	return w, NewChecker(w), names
}

// TestSnapshotMaxConcurrent: with kubernetes.operator.snapshot.max-concurrent 1, four jobs whose
// periodic savepoints fall due together take them one at a time, and all of them get taken;
// an operator without the bound takes several at once, and N4 says so.
func TestSnapshotMaxConcurrent(t *testing.T) {
	w, c, names := periodicFleet(t, 1, true)
	if err := c.StepUntil(w.Now().Add(5*time.Minute), nil, names...); err != nil {
		t.Fatalf("%v\n%s", err, w.Trace)
	}
	for _, name := range names {
		d, _ := w.Get(name)
		if sp := d.Status.JobStatus.SavepointInfo; sp == nil || len(sp.SavepointHistory) < 2 {
			t.Errorf("%s took fewer than two periodic savepoints in 5 minutes: %+v", name, sp)
		}
	}

	w, c, names = periodicFleet(t, 1, false)
	err := c.StepUntil(w.Now().Add(5*time.Minute), nil, names...)
	if err == nil || !strings.Contains(err.Error(), "N4: ") {
		t.Fatalf("an unbounded operator broke no bound: %v", err)
	}
}
