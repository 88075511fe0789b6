package rest

import (
	"net/http"
	"time"

	"github.com/flinkop/flinkop/fakeflink"
)

// rescaleRoutes serve the adaptive scheduler's rescale endpoints. The fake keeps no rescale
// history (a change of resource requirements restarts the job at once): the history is empty,
// the counts are zero and no rescale has details.
func (s *Server) rescaleRoutes() {
	s.handle("GET /jobs/{jobid}/rescales/config", withJob(func(c *fakeflink.Cluster, _ *fakeflink.Job, _ *http.Request) (int, any, error) {
		ms := func(key string, def time.Duration) int64 {
			if v := configValue(c, key); v != "" {
				if d, err := fakeflink.ParseDuration(v); err == nil {
					return d.Milliseconds()
				}
			}
			return def.Milliseconds()
		}
		out := map[string]any{
			"rescaleHistoryMax":                              10,
			"rescaleOnFailedCheckpointCount":                 2,
			"slotIdleTimeoutInMillis":                        ms("slot.idle.timeout", 50*time.Second),
			"executingCooldownTimeoutInMillis":               ms("jobmanager.adaptive-scheduler.executing.cooldown-after-rescaling", 30*time.Second),
			"executingResourceStabilizationTimeoutInMillis":  ms("jobmanager.adaptive-scheduler.executing.resource-stabilization-timeout", time.Minute),
			"maximumDelayForTriggeringRescaleInMillis":       ms("jobmanager.adaptive-scheduler.rescale-trigger.max-delay", 5*time.Minute),
			"submissionResourceStabilizationTimeoutInMillis": ms("jobmanager.adaptive-scheduler.submission.resource-stabilization-timeout", 10*time.Second),
			"submissionResourceWaitTimeoutInMillis":          ms("jobmanager.adaptive-scheduler.submission.resource-wait-timeout", 5*time.Minute),
		}
		if configValue(c, "scheduler-mode") == "reactive" {
			out["schedulerExecutionMode"] = "REACTIVE"
		}
		return http.StatusOK, out, nil
	}))
	s.handle("GET /jobs/{jobid}/rescales/history", withJob(func(*fakeflink.Cluster, *fakeflink.Job, *http.Request) (int, any, error) {
		return http.StatusOK, []any{}, nil
	}))
	counts := map[string]int{"inProgress": 0, "completed": 0, "failed": 0, "ignored": 0}
	s.handle("GET /jobs/{jobid}/rescales/overview", withJob(func(*fakeflink.Cluster, *fakeflink.Job, *http.Request) (int, any, error) {
		return http.StatusOK, map[string]any{"rescalesCounts": counts, "latest": map[string]any{}}, nil
	}))
	s.handle("GET /jobs/{jobid}/rescales/summary", withJob(func(*fakeflink.Cluster, *fakeflink.Job, *http.Request) (int, any, error) {
		zero := map[string]any{"min": 0, "max": 0, "avg": 0, "p50": 0.0, "p90": 0.0, "p95": 0.0, "p99": 0.0, "p999": 0.0}
		return http.StatusOK, map[string]any{
			"rescalesCounts": counts, "rescalesDurationStatsInMillis": zero, "completedRescalesDurationStatsInMillis": zero,
			"failedRescalesDurationStatsInMillis": zero, "ignoredRescalesDurationStatsInMillis": zero,
		}, nil
	}))
	s.handle("GET /jobs/{jobid}/rescales/details/{rescaleuuid}", withJob(func(_ *fakeflink.Cluster, _ *fakeflink.Job, r *http.Request) (int, any, error) {
		return 0, nil, &fakeflink.Error{Kind: fakeflink.KindNotFound, Msg: "Rescale " + r.PathValue("rescaleuuid") + " not found."}
	}))
}

// configValue is the value of a key of the cluster's configuration ("" when unset).
func configValue(c *fakeflink.Cluster, key string) string {
	for _, kv := range c.Config() {
		if kv[0] == key {
			return kv[1]
		}
	}
	return ""
}
