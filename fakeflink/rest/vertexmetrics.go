package rest

import (
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/flinkop/flinkop/fakeflink"
)

// metric is one metric of a vertex's subtasks, every subtask reporting the same share: per is
// one subtask's value; a time (ms per second) is each subtask's, a count or rate is split.
type metric struct {
	per  float64
	time bool
}

// vertexMetrics are the metrics every subtask of a vertex reports, by name: the task's I/O
// counters and rates, its busy, back-pressured and idle time, and its operator's metrics under
// the operator's name (a source's pendingRecords among them). A job with a workload reports
// its model's values; the plain job consumes at its constant rate, half busy.
func vertexMetrics(c *fakeflink.Cluster, v vertex) map[string]metric {
	now := c.Now()
	p := float64(max(1, v.parallelism()))
	offset := float64(v.job.Offset(now))
	rate, busy, back, pending := 0.0, 500.0, 0.0, 0.0
	if v.job.Status == fakeflink.StatusRunning {
		rate = float64(v.job.Program.RecordsPerSecond)
	}
	if all := v.job.VertexMetrics(now); all != nil {
		m := all[v.index]
		rate, busy, back, pending = m.NumRecordsOutPerSecond, m.BusyTimeMsPerSecond, m.BackPressuredTimeMsPerSecond, m.PendingRecords
	} else if v.job.HasWorkload() {
		rate, busy = 0, 0
	}
	in, inRate, out, outRate := offset, rate, offset, rate
	if v.index == 0 {
		in, inRate = 0, 0
	}
	split := func(x float64) metric { return metric{per: x / p} }
	ms := func(x float64) metric { return metric{per: x, time: true} }
	out2 := map[string]metric{
		"numRecordsIn": split(in), "numRecordsInPerSecond": split(inRate),
		"numRecordsOut": split(out), "numRecordsOutPerSecond": split(outRate),
		"busyTimeMsPerSecond": ms(busy), "backPressuredTimeMsPerSecond": ms(back), "idleTimeMsPerSecond": ms(1000 - busy - back),
	}
	op := OperatorMetricName(v.name())
	// The operator's own counters: a source counts the records it reads from outside.
	opIn, opInRate := in, inRate
	if v.index == 0 {
		opIn, opInRate = offset, rate
		out2[op+".pendingRecords"] = split(pending)
	}
	out2[op+".numRecordsIn"], out2[op+".numRecordsInPerSecond"] = split(opIn), split(opInRate)
	out2[op+".numRecordsOut"], out2[op+".numRecordsOutPerSecond"] = split(out), split(outRate)
	return out2
}

// OperatorMetricName is an operator's name as the ids of its metrics begin: Flink truncates
// it to 80 characters (TaskMetricGroup), then its metric query service replaces each space,
// dot, colon and comma with an underscore ("Source: Kafka" → "Source__Kafka").
func OperatorMetricName(name string) string {
	if len(name) > maxOperatorNameLength {
		name = name[:maxOperatorNameLength]
	}
	return strings.NewReplacer(" ", "_", ".", "_", ":", "_", ",", "_").Replace(name)
}

// maxOperatorNameLength is Flink's METRICS_OPERATOR_NAME_MAX_LENGTH.
const maxOperatorNameLength = 80

// subtaskMetricValues are the metrics each subtask of v reports (every one the same share).
func subtaskMetricValues(c *fakeflink.Cluster, v vertex) map[string]string {
	out := map[string]string{"currentInputWatermark": strconv.FormatInt(minWatermark(c, v.job), 10)}
	for k, m := range vertexMetrics(c, v) {
		out[k] = strconv.FormatFloat(m.per, 'f', -1, 64)
	}
	return out
}

// subtaskMetrics aggregates a vertex's metrics over its subtasks (min, max, avg, sum, skew).
func subtaskMetrics(c *fakeflink.Cluster, v vertex, r *http.Request) (int, any, error) {
	all := vertexMetrics(c, v)
	names := splitList(r.URL.Query().Get("get"))
	if len(names) == 0 {
		out := []map[string]string{}
		for _, k := range slices.Sorted(maps.Keys(all)) {
			out = append(out, map[string]string{"id": k})
		}
		return http.StatusOK, out, nil
	}
	aggs := splitList(strings.ToLower(r.URL.Query().Get("agg")))
	if len(aggs) == 0 {
		aggs = []string{"min", "max", "avg", "sum", "skew"}
	}
	p := float64(max(1, v.parallelism()))
	out := []map[string]any{}
	for _, name := range names {
		m, ok := all[name]
		if !ok {
			return http.StatusOK, []map[string]any{}, nil // one name without values empties the answer
		}
		lo, hi := m.per, m.per
		if !m.time {
			lo, hi = math.Floor(m.per), math.Ceil(m.per)
		}
		vals := map[string]float64{"min": lo, "max": hi, "avg": m.per, "sum": m.per * p, "skew": 0}
		entry := map[string]any{"id": name}
		for _, a := range aggs {
			if x, ok := vals[a]; ok {
				entry[a] = x
			}
		}
		out = append(out, entry)
	}
	return http.StatusOK, out, nil
}
