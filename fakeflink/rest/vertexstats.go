package rest

import (
	"slices"

	"github.com/flinkop/flinkop/fakeflink"
)

// aggregated is AggregatedTaskDetailsInfo: min/max/avg/sum/median/p25/p75/p95 of the subtasks'
// IO metrics and status durations.
func aggregated(c *fakeflink.Cluster, v vertex) map[string]any {
	metrics := map[string]map[string]int64{}
	for _, k := range []string{"read-bytes", "write-bytes", "read-records", "write-records", "accumulated-backpressured-time", "accumulated-idle-time", "accumulated-busy-time"} {
		var vals []int64
		for i := range v.parallelism() {
			switch x := ioMetrics(c, v, i)[k].(type) {
			case int64:
				vals = append(vals, x)
			case float64:
				vals = append(vals, int64(x))
			default:
				vals = append(vals, 0)
			}
		}
		metrics[k] = stats(vals)
	}
	durations := map[string]map[string]int64{}
	for _, st := range executionStates {
		durations[st] = stats(make([]int64, v.parallelism()))
	}
	return map[string]any{"metrics": metrics, "status-duration": durations}
}

func stats(vals []int64) map[string]int64 {
	out := map[string]int64{"min": 0, "max": 0, "avg": 0, "sum": 0, "median": 0, "p25": 0, "p75": 0, "p95": 0}
	if len(vals) == 0 {
		return out
	}
	s := slices.Clone(vals)
	slices.Sort(s)
	var sum int64
	for _, x := range s {
		sum += x
	}
	at := func(q float64) int64 { return s[min(len(s)-1, int(q*float64(len(s))))] }
	out["min"], out["max"], out["sum"], out["avg"] = s[0], s[len(s)-1], sum, sum/int64(len(s))
	out["median"], out["p25"], out["p75"], out["p95"] = at(0.5), at(0.25), at(0.75), at(0.95)
	return out
}
