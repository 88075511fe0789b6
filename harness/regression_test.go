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
