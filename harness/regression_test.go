package harness

import (
	"testing"
	"time"

	"github.com/flinkop/flinkop/fakeflink"
)

// TestNewestSnapshotFloor checks the floor the regression invariant judges a start against:
// each case is one rule, and the broken variants (a rule left out) would give another floor.
func TestNewestSnapshotFloor(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	cp := func(path string, off int64, s int) fakeflink.Snapshot {
		return fakeflink.Snapshot{Path: path, Kind: fakeflink.KindCheckpoint, Offset: off, Time: at(s)}
	}
	sp := func(path string, off int64, s int) fakeflink.Snapshot {
		return fakeflink.Snapshot{Path: path, Kind: fakeflink.KindSavepoint, Offset: off, Time: at(s)}
	}
	cases := map[string]struct {
		snapshots       []fakeflink.Snapshot
		failovers       []fakeflink.Failover
		known           []string
		lineage         time.Time
		checkpointsOnly bool
		want            int64
	}{
		"newest checkpoint before the start": {
			snapshots: []fakeflink.Snapshot{cp("chk-1", 10, 10), cp("chk-2", 20, 20), cp("chk-3", 30, 70)},
			want:      20,
		},
		"a savepoint the status showed counts": {
			snapshots: []fakeflink.Snapshot{cp("chk-1", 10, 10), sp("sp-1", 25, 30)},
			known:     []string{"sp-1"},
			want:      25,
		},
		"a savepoint the operator never saw does not": {
			snapshots: []fakeflink.Snapshot{cp("chk-1", 10, 10), sp("sp-1", 25, 30)},
			want:      10,
		},
		"HA recovery restores checkpoints only": {
			snapshots:       []fakeflink.Snapshot{cp("chk-1", 10, 10), sp("sp-1", 25, 30)},
			known:           []string{"sp-1"},
			checkpointsOnly: true,
			want:            10,
		},
		"a failover took the job behind a savepoint: off its lineage": {
			snapshots: []fakeflink.Snapshot{cp("chk-1", 10, 10), sp("sp-1", 25, 30), cp("chk-2", 18, 50)},
			failovers: []fakeflink.Failover{{At: at(40), RestoredFrom: at(10), Offset: 10}},
			known:     []string{"sp-1"},
			want:      18,
		},
		"a failover after the start does not matter yet": {
			snapshots: []fakeflink.Snapshot{cp("chk-1", 10, 10), sp("sp-1", 25, 30)},
			failovers: []fakeflink.Failover{{At: at(80), RestoredFrom: at(10), Offset: 10}},
			known:     []string{"sp-1"},
			want:      25,
		},
		"snapshots before the lineage began do not count": {
			snapshots: []fakeflink.Snapshot{cp("chk-1", 40, 10), cp("chk-2", 5, 45)},
			lineage:   at(40),
			want:      5,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := NewChecker(nil)
			c.snapshots["job-1"] = map[string]fakeflink.Snapshot{}
			for _, s := range tc.snapshots {
				c.snapshots["job-1"][s.Path] = s
			}
			c.failovers["job-1"] = tc.failovers
			c.knownSavepoints["d"] = map[string]bool{}
			for _, p := range tc.known {
				c.knownSavepoints["d"][p] = true
			}
			c.lineage["d"] = tc.lineage
			if got := c.newest("d", "job-1", at(60), tc.checkpointsOnly); got != tc.want {
				t.Errorf("floor %d, want %d", got, tc.want)
			}
		})
	}
}

// TestHARecoveryLeavesLaterSavepointsOffTheLineage: a JobManager crash right after a savepoint
// makes Flink recover the checkpoint before it; a later stop-with-savepoint descends from that
// checkpoint, so the earlier savepoint no longer sets the floor (found by the property sweep).
func TestHARecoveryLeavesLaterSavepointsOffTheLineage(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	for _, recovered := range []bool{false, true} {
		c := NewChecker(nil)
		c.snapshots["job-1"] = map[string]fakeflink.Snapshot{
			"chk-5": {Path: "chk-5", Kind: fakeflink.KindCheckpoint, Offset: 22000, Time: at(50)},
			"sp-a":  {Path: "sp-a", Kind: fakeflink.KindSavepoint, Offset: 22700, Time: at(61)},
			"sp-b":  {Path: "sp-b", Kind: fakeflink.KindSavepoint, Offset: 22500, Time: at(65)},
		}
		c.knownSavepoints["d"] = map[string]bool{"sp-a": true, "sp-b": true}
		if recovered {
			c.noteRecovery("job-1", fakeflink.JobStart{JobID: "job-1", Time: at(62), RestorePath: "chk-5", Offset: 22000})
		}
		c.noteRecovery("job-1", fakeflink.JobStart{JobID: "job-2", Time: at(63), RestorePath: "chk-5"}) // another job: no break
		want := map[bool]int64{false: 22700, true: 22500}[recovered]
		if got := c.newest("d", "job-1", at(69), false); got != want {
			t.Errorf("recovered=%v: floor %d, want %d", recovered, got, want)
		}
	}
}
