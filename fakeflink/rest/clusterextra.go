package rest

import (
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/flinkop/flinkop/fakeflink"
)

// hexID is the form of Flink's AbstractID-based ids (job, vertex, data set, trigger).
var hexID = regexp.MustCompile(`^[0-9a-f]{32}$`)

// clusterExtraRoutes serve the JobManager's and TaskManagers' own endpoints (environment,
// logs, metrics, thread dumps, TaskManager details), cluster data sets and cluster shutdown.
func (s *Server) clusterExtraRoutes() {
	s.handle("DELETE /cluster", func(c *fakeflink.Cluster, _ *http.Request) (int, any, error) {
		// The JobManager process exits after answering; its pod restarts it.
		c.CrashJobManager()
		return http.StatusOK, map[string]any{}, nil
	})
	s.handle("GET /jobmanager/environment", func(*fakeflink.Cluster, *http.Request) (int, any, error) {
		return http.StatusOK, environment(), nil
	})
	s.handle("GET /jobmanager/logs", func(c *fakeflink.Cluster, _ *http.Request) (int, any, error) {
		service := "standalonesession"
		if c.Spec().Application != nil {
			service = "standalonejob"
		}
		return http.StatusOK, logList(c, "flink-flink-"+service+"-0-"+c.ID()), nil
	})
	s.handle("GET /jobmanager/metrics", func(c *fakeflink.Cluster, r *http.Request) (int, any, error) {
		running := 0
		for _, j := range c.Jobs() {
			if !j.Status.IsTerminal() {
				running++
			}
		}
		return http.StatusOK, metricValues(map[string]string{
			"numRegisteredTaskManagers": strconv.Itoa(len(c.TaskManagers())), "numRunningJobs": strconv.Itoa(running),
			"taskSlotsTotal": strconv.Itoa(c.TotalSlots()), "taskSlotsAvailable": strconv.Itoa(c.TotalSlots() - c.UsedSlots()),
			"Status.JVM.Memory.Heap.Used": strconv.Itoa(256 << 20), "Status.JVM.Memory.Heap.Max": strconv.Itoa(512 << 20),
			"Status.JVM.CPU.Load": "0.05",
		}, r), nil
	})
	s.handle("GET /jobmanager/thread-dump", func(*fakeflink.Cluster, *http.Request) (int, any, error) {
		return http.StatusOK, threadDump(), nil
	})
	s.handle("GET /datasets", func(*fakeflink.Cluster, *http.Request) (int, any, error) {
		return http.StatusOK, map[string]any{"dataSets": []any{}}, nil // no job of the fake caches results
	})
	s.handle("DELETE /datasets/{datasetid}", func(_ *fakeflink.Cluster, r *http.Request) (int, any, error) {
		id := r.PathValue("datasetid")
		if !hexID.MatchString(id) {
			return 0, nil, badRequest("ClusterDataSetIdPathParameter", fmt.Errorf("cannot parse data set id %q", id))
		}
		trigger := s.nextTrigger("dataset:" + id)
		return http.StatusAccepted, map[string]string{"request-id": trigger}, nil
	})
	s.handle("GET /datasets/delete/{triggerid}", func(_ *fakeflink.Cluster, r *http.Request) (int, any, error) {
		if !s.hasTrigger(r.PathValue("triggerid")) {
			return 0, nil, &fakeflink.Error{Kind: fakeflink.KindNotFound, Msg: "Operation not found under key: " + r.PathValue("triggerid")}
		}
		// Releasing the partitions of a data set nobody holds completes at once.
		return http.StatusOK, map[string]any{"status": map[string]string{"id": "COMPLETED"}, "operation": map[string]any{}}, nil
	})
	s.handle("GET /taskmanagers/metrics", func(c *fakeflink.Cluster, r *http.Request) (int, any, error) {
		per := map[string]map[string]string{}
		for id := range c.TaskManagers() {
			if selected(r, "taskmanagers", id) {
				per[id] = taskManagerMetrics(c, id)
			}
		}
		return http.StatusOK, aggregate(per, r), nil
	})
	s.handle("GET /taskmanagers/{taskmanagerid}", withTaskManager(func(c *fakeflink.Cluster, id string, slots int, _ *http.Request) (int, any, error) {
		return http.StatusOK, taskManagerDetails(c, id, slots), nil
	}))
	s.handle("GET /taskmanagers/{taskmanagerid}/logs", withTaskManager(func(c *fakeflink.Cluster, id string, _ int, _ *http.Request) (int, any, error) {
		return http.StatusOK, logList(c, "flink-flink-taskexecutor-0-"+id), nil
	}))
	s.handle("GET /taskmanagers/{taskmanagerid}/metrics", withTaskManager(func(c *fakeflink.Cluster, id string, _ int, r *http.Request) (int, any, error) {
		return http.StatusOK, metricValues(taskManagerMetrics(c, id), r), nil
	}))
	s.handle("GET /taskmanagers/{taskmanagerid}/thread-dump", withTaskManager(func(*fakeflink.Cluster, string, int, *http.Request) (int, any, error) {
		return http.StatusOK, threadDump(), nil
	}))
}

// nextTrigger records a trigger id for an operation that completes at once.
func (s *Server) nextTrigger(op string) string {
	s.triggers++
	id := fmt.Sprintf("%024x%08x", len(op), s.triggers)
	if s.done == nil {
		s.done = map[string]bool{}
	}
	s.done[id] = true
	return id
}

func (s *Server) hasTrigger(id string) bool { return s.done[id] }

func withTaskManager(h func(c *fakeflink.Cluster, id string, slots int, r *http.Request) (int, any, error)) handlerFunc {
	return func(c *fakeflink.Cluster, r *http.Request) (int, any, error) {
		id := r.PathValue("taskmanagerid")
		slots, ok := c.TaskManagers()[id]
		if !ok {
			return http.StatusNotFound, errorBody{Errors: []string{"Could not find TaskExecutor " + id + "."}}, nil
		}
		return h(c, id, slots, r)
	}
}

// environment is EnvironmentInfo of a Flink process on the official image.
func environment() map[string]any {
	return map[string]any{
		"jvm": map[string]any{
			"version": "OpenJDK 64-Bit Server VM - Eclipse Adoptium - 17 - 17.0.12+7", "arch": "amd64",
			"options": []string{"-Xmx469762048", "-Xms469762048", "-XX:MaxMetaspaceSize=268435456", "-Dlog4j.configurationFile=file:/opt/flink/conf/log4j-console.properties"},
		},
		"classpath": []string{"/opt/flink/lib/flink-dist.jar", "/opt/flink/lib/log4j-api.jar", "/opt/flink/lib/log4j-core.jar", "/opt/flink/lib/log4j-slf4j-impl.jar"},
	}
}

func logList(c *fakeflink.Cluster, prefix string) map[string]any {
	return map[string]any{"logs": []map[string]any{{"name": prefix + ".log", "size": 4096, "mtime": c.Now().UnixMilli()}}}
}

func threadDump() map[string]any {
	return map[string]any{"threadInfos": []map[string]string{
		{"threadName": "main", "stringifiedThreadInfo": "\"main\" Id=1 WAITING\n\tat java.base@17/jdk.internal.misc.Unsafe.park(Native Method)\n"},
		{"threadName": "flink-pekko.actor.default-dispatcher-4", "stringifiedThreadInfo": "\"flink-pekko.actor.default-dispatcher-4\" Id=27 WAITING\n"},
	}}
}

// taskManagerMetrics are the metrics a TaskManager reports.
func taskManagerMetrics(c *fakeflink.Cluster, id string) map[string]string {
	slots := c.TaskManagers()[id]
	return map[string]string{
		"Status.JVM.Memory.Heap.Used": strconv.Itoa(200 << 20), "Status.JVM.Memory.Heap.Max": strconv.Itoa(512 << 20),
		"Status.JVM.CPU.Load": "0.1", "Status.Shuffle.Netty.TotalMemorySegments": strconv.Itoa(2048 * slots),
		"Status.Shuffle.Netty.AvailableMemorySegments": strconv.Itoa(2048 * slots),
		"Status.Flink.Memory.Managed.Total":            strconv.Itoa(256 << 20 * slots),
	}
}

// taskManagerDetails is TaskManagerDetailsInfo: the /taskmanagers entry plus memory
// configuration, JVM metrics and the slots jobs hold on it.
func taskManagerDetails(c *fakeflink.Cluster, id string, slots int) map[string]any {
	used := 0
	allocated := []map[string]any{}
	for i := range c.TotalSlots() {
		if slotOwner(c, i) != id || i >= c.UsedSlots() {
			continue
		}
		used++
		if j := slotJob(c, i); j != nil {
			allocated = append(allocated, map[string]any{"jobId": j.ID, "assignedTasks": 2, "resource": resourceProfile(1)})
		}
	}
	mem := int64(1728 << 20)
	return map[string]any{
		"id": id, "path": "pekko.tcp://flink@" + id + ":6122/user/rpc/taskmanager_0",
		"dataPort": 6121, "jmxPort": -1, "timeSinceLastHeartbeat": c.Now().UnixMilli(), "blocked": false,
		"slotsNumber": slots, "freeSlots": slots - used, "assignedTasks": 2 * used,
		"totalResource": resourceProfile(slots), "freeResource": resourceProfile(slots - used),
		"hardware": map[string]int64{"cpuCores": 2, "physicalMemory": 4 << 30, "freeMemory": 1 << 30, "managedMemory": 512 << 20},
		"memoryConfiguration": map[string]int64{
			"frameworkHeap": 128 << 20, "taskHeap": 384 << 20, "frameworkOffHeap": 128 << 20, "taskOffHeap": 0,
			"networkMemory": 128 << 20, "managedMemory": 512 << 20, "jvmMetaspace": 256 << 20, "jvmOverhead": 192 << 20,
			"totalFlinkMemory": mem - 448<<20, "totalProcessMemory": mem,
		},
		"metrics": map[string]any{
			"heapUsed": 200 << 20, "heapCommitted": 512 << 20, "heapMax": 512 << 20,
			"nonHeapUsed": 80 << 20, "nonHeapCommitted": 90 << 20, "nonHeapMax": -1,
			"directCount": 10, "directUsed": 1 << 20, "directMax": 1 << 20, "mappedCount": 0, "mappedUsed": 0, "mappedMax": 0,
			"nettyShuffleMemorySegmentsAvailable": 4096, "nettyShuffleMemorySegmentsUsed": 0, "nettyShuffleMemorySegmentsTotal": 4096,
			"nettyShuffleMemoryAvailable": 128 << 20, "nettyShuffleMemoryUsed": 0, "nettyShuffleMemoryTotal": 128 << 20,
			"garbageCollectors": []map[string]any{{"name": "G1_Young_Generation", "count": 3, "time": 25}, {"name": "G1_Old_Generation", "count": 0, "time": 0}},
		},
		"allocatedSlots": allocated,
	}
}

// slotJob is the job holding slot i: jobs take slots in submission order.
func slotJob(c *fakeflink.Cluster, slot int) *fakeflink.Job {
	for _, j := range c.Jobs() {
		if j.Status.IsTerminal() {
			continue
		}
		if slot < j.Parallelism() {
			return j
		}
		slot -= j.Parallelism()
	}
	return nil
}

// selected reports whether a ?<param>=a,b filter (absent: everything) names id.
func selected(r *http.Request, param, id string) bool {
	ids := splitList(r.URL.Query().Get(param))
	return len(ids) == 0 || slices.Contains(ids, id)
}

// aggregate answers an aggregated metrics request over several components: without ?get the
// metric names, with it min/max/avg/sum/skew (or those named in ?agg) of each named metric. As
// in Flink, a named metric no component has empties the whole answer, and one that is not
// numeric is left out.
func aggregate(per map[string]map[string]string, r *http.Request) []map[string]any {
	names := map[string]bool{}
	for _, m := range per {
		for k := range m {
			names[k] = true
		}
	}
	out := []map[string]any{} // a bare array
	get := splitList(r.URL.Query().Get("get"))
	if len(get) == 0 {
		for _, k := range slices.Sorted(maps.Keys(names)) {
			out = append(out, map[string]any{"id": k})
		}
		return out
	}
	aggs := splitList(strings.ToLower(r.URL.Query().Get("agg")))
	if len(aggs) == 0 {
		aggs = []string{"min", "max", "avg", "sum", "skew"}
	}
	for _, name := range get {
		if !names[name] {
			return []map[string]any{} // one name without values empties the answer, as in Flink
		}
		var vals []float64
		numeric := true
		for _, id := range slices.Sorted(maps.Keys(per)) {
			if v, ok := per[id][name]; ok {
				f, err := strconv.ParseFloat(v, 64)
				numeric = numeric && err == nil
				vals = append(vals, f)
			}
		}
		if !numeric {
			continue
		}
		entry := map[string]any{"id": name}
		for _, a := range aggs {
			if v, ok := aggregateValue(vals, a); ok {
				entry[a] = v
			}
		}
		out = append(out, entry)
	}
	return out
}

func aggregateValue(vals []float64, agg string) (float64, bool) {
	if len(vals) == 0 {
		return 0, false
	}
	lo, hi, sum := vals[0], vals[0], 0.0
	for _, v := range vals {
		lo, hi, sum = min(lo, v), max(hi, v), sum+v
	}
	avg := sum / float64(len(vals))
	switch agg {
	case "min":
		return lo, true
	case "max":
		return hi, true
	case "sum":
		return sum, true
	case "avg":
		return avg, true
	case "skew":
		if avg == 0 {
			return 0, true
		}
		return (hi - avg) / avg * 100, true
	}
	return 0, false
}
