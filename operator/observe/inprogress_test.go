package observe

import (
	"testing"

	"github.com/flinkop/flinkop/operator/flink"
)

// TestSavepointInProgress: a savepoint in flight is seen when the checkpoint history lists it,
// and when newer checkpoints pushed it out of the history but counts.in_progress still counts
// it; a listed checkpoint in progress is not a savepoint.
func TestSavepointInProgress(t *testing.T) {
	entry := func(status string, savepoint bool) flink.CheckpointStats {
		return flink.CheckpointStats{Status: status, IsSavepoint: savepoint}
	}
	for name, tc := range map[string]struct {
		inProgress int32
		history    []flink.CheckpointStats
		want       bool
	}{
		"nothing in flight":             {history: []flink.CheckpointStats{entry("COMPLETED", false), entry("COMPLETED", true)}},
		"a savepoint listed":            {inProgress: 1, history: []flink.CheckpointStats{entry("COMPLETED", false), entry("IN_PROGRESS", true)}, want: true},
		"a checkpoint listed":           {inProgress: 1, history: []flink.CheckpointStats{entry("IN_PROGRESS", false), entry("COMPLETED", true)}},
		"one pushed out of the history": {inProgress: 2, history: []flink.CheckpointStats{entry("IN_PROGRESS", false), entry("COMPLETED", false)}, want: true},
	} {
		st := &flink.CheckpointingStatistics{History: tc.history}
		st.Counts.InProgress = tc.inProgress
		if got := savepointInProgress(st); got != tc.want {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
}
