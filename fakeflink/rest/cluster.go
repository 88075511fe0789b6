package rest

import (
	"maps"
	"net/http"
	"slices"

	"github.com/flinkop/flinkop/fakeflink"
)

func (s *Server) clusterRoutes() {
	s.handle("GET /config", func(c *fakeflink.Cluster, _ *http.Request) (int, any, error) {
		return http.StatusOK, map[string]any{
			"refresh-interval": 3000, "timezone-name": "Coordinated Universal Time", "timezone-offset": 0,
			"flink-version": c.Spec().FlinkVersion, "flink-revision": "fakeflink @ " + c.Spec().FlinkVersion,
			"features": map[string]bool{
				"web-submit": c.Spec().Application == nil, "web-cancel": true, "web-rescale": false, "web-history": false,
			},
		}, nil
	})
	s.handle("GET /overview", func(c *fakeflink.Cluster, _ *http.Request) (int, any, error) {
		counts := map[fakeflink.JobStatus]int{}
		running := 0
		for _, j := range c.Jobs() {
			counts[j.Status]++
			if !j.Status.IsTerminal() {
				running++
			}
		}
		return http.StatusOK, map[string]any{
			"taskmanagers": len(c.TaskManagers()), "slots-total": c.TotalSlots(),
			"slots-available": c.TotalSlots() - c.UsedSlots(), "jobs-running": running,
			"jobs-finished": counts[fakeflink.StatusFinished], "jobs-cancelled": counts[fakeflink.StatusCanceled],
			"jobs-failed": counts[fakeflink.StatusFailed], "flink-version": c.Spec().FlinkVersion,
			"flink-commit": "fakeflink",
		}, nil
	})
	s.handle("GET /jobmanager/config", func(c *fakeflink.Cluster, _ *http.Request) (int, any, error) {
		return http.StatusOK, configEntries(c), nil
	})
	s.handle("GET /taskmanagers", func(c *fakeflink.Cluster, _ *http.Request) (int, any, error) {
		tms := c.TaskManagers()
		used := c.UsedSlots()
		out := []map[string]any{}
		for _, id := range slices.Sorted(maps.Keys(tms)) {
			slots := tms[id]
			busy := min(used, slots)
			used -= busy
			out = append(out, map[string]any{
				"id": id, "path": "pekko.tcp://flink@" + id + ":6122/user/rpc/taskmanager_0",
				"dataPort": 6121, "jmxPort": -1, "timeSinceLastHeartbeat": c.Now().UnixMilli(),
				"slotsNumber": slots, "freeSlots": slots - busy,
				"totalResource": resourceProfile(slots), "freeResource": resourceProfile(slots - busy),
				"hardware": map[string]int64{"cpuCores": 2, "physicalMemory": 4 << 30, "freeMemory": 1 << 30, "managedMemory": 512 << 20},
			})
		}
		return http.StatusOK, map[string]any{"taskmanagers": out}, nil
	})
}

func resourceProfile(slots int) map[string]any {
	return map[string]any{
		"cpuCores": float64(slots), "taskHeapMemory": 256 * slots, "taskOffHeapMemory": 0,
		"managedMemory": 256 * slots, "networkMemory": 64 * slots, "extendedResources": map[string]float64{},
	}
}

// configEntries is the JobManager's configuration as ConfigurationInfoEntry items.
func configEntries(c *fakeflink.Cluster) []map[string]string {
	out := []map[string]string{}
	for _, kv := range c.Config() {
		out = append(out, map[string]string{"key": kv[0], "value": kv[1]})
	}
	return out
}
