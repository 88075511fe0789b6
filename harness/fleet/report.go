package fleet

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// Report is what a fleet run measured.
type Report struct {
	// N deployments, Slow of them hung in the last phase.
	N, Slow int
	// Converge is from the first create to every deployment running; ConvergeWrites are the
	// operator's API writes meanwhile.
	Converge       time.Duration
	ConvergeWrites int64
	// ConvergeWritesByKind splits ConvergeWrites by verb and resource ("PUT
	// flinkdeployments/status").
	ConvergeWritesByKind map[string]int64
	// ConvergeCPU and WaveCPU are the CPU time each process used to converge and in the wave:
	// this one (harnessProcess) and those it started, by command name (see processCPU).
	ConvergeCPU, WaveCPU map[string]time.Duration
	// ConvergeAllocations and FloorAllocations are the API server's ClusterIP allocations
	// to converge and in the floor's run with 16 writers (one at a time: see Allocations);
	// the ...Read fields say whether the API server's metrics could be read before and after.
	ConvergeAllocations, FloorAllocations         Allocations
	ConvergeAllocationsRead, FloorAllocationsRead bool
	// ConvergeReadsByKind are the operator's API reads to converge by kind of read and
	// resource ("get services", "list pods", "watch deployments").
	ConvergeReadsByKind map[string]int64
	// WorldConvergeWrites are the pod simulator's and the fakeflink clusters' API writes
	// (what kubelet, the Deployment controller and Flink's HA services would write) to
	// converge, by verb and resource; the floor does not include them.
	WorldConvergeWrites map[string]int64
	// Failures are the operator's requests that the API server failed (5xx, 429) or did not
	// answer during the whole run, by verb, resource and code ("POST services 504").
	Failures map[string]int64
	// FloorParallel and FloorSerial are ConvergeWrites done by a plain client with 16 writers
	// and with one.
	FloorParallel, FloorSerial time.Duration
	// FreshFloor: the floor ran on a fresh API server (Config.FreshFloor).
	FreshFloor bool
	// SteadyWrites (by verb and resource in SteadyWritesByKind) and SteadyRESTPerDeployment
	// are counted over SteadyWindow at steady state.
	SteadyWrites            int64
	SteadyWritesByKind      map[string]int64
	SteadyRESTPerDeployment float64
	SteadyWindow            time.Duration
	// Wave is from changing every deployment's parallelism to all running it.
	Wave time.Duration
	// Latency and SlowLatency are spec change → operator's first action of healthy
	// deployments, sorted, without and with the slow share hung.
	Latency, SlowLatency []time.Duration
	// HungCalls are the REST calls to hung JobManagers during the last phase.
	HungCalls int64
	// SteadyEvents are the Events written at steady state, by type and reason (see
	// eventsSince).
	SteadyEvents map[string]int64
	// HeapMB and RSSMB are this process's at steady state (with the API server's client, the
	// pod simulator and the fakeflink clusters, and the operator unless it runs apart).
	HeapMB, RSSMB float64
	// OperatorHeapMB is the operator's heap in use at steady state: its process's after a
	// collection when it runs apart, else the part of this process's heap the operator's code
	// holds (see operatorHeapMB).
	OperatorHeapMB float64
	// Apart is set when the operator ran as its own process (Config.OperatorBinary); then
	// OperatorRSSMB and OperatorPeakRSSMB are its resident set at steady state and at its
	// peak, and OperatorCPU and SteadyCPU its CPU time to converge and over SteadyWindow.
	Apart                            bool
	OperatorRSSMB, OperatorPeakRSSMB float64
	OperatorCPU, SteadyCPU           time.Duration
	// Bystanders is set when the bystander objects were created; BystanderBaseMB and
	// BystanderHeapMB are the operator's heap just before and after them.
	Bystanders                       bool
	BystanderBaseMB, BystanderHeapMB float64
	// Hostile is set when hostile tenants' code ran (Config.Hostile): HostileJobManagers
	// answered hostile; the operator's heap and resident set before and after, and its peak
	// resident set.
	Hostile                                       bool
	HostileJobManagers                            int
	HostileBaseHeapMB, HostileBaseRSSMB           float64
	HostileHeapMB, HostileRSSMB, HostilePeakRSSMB float64
}

// Write prints the report as a table row with its header, and the figures behind it.
func (r *Report) Write(w io.Writer) {
	ratio := func(a, b time.Duration) string {
		if b <= 0 {
			return "–"
		}
		return fmt.Sprintf("%.1f×", a.Seconds()/b.Seconds())
	}
	s := func(d time.Duration) string {
		if d <= 0 {
			return "–" // not measured
		}
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	_, _ = fmt.Fprintf(w, "| fleet | converge | plain client, same writes (16 / 1 writers) | converge ÷ floor(16) | upgrade wave | first action p50 / p99 | with %d%% hung: p50 / p99 | %s |\n",
		r.slowPercent(), r.memoryHeader())
	_, _ = fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	_, _ = fmt.Fprintf(w, "| %d | %s | %s / %s | %s | %s | %s / %s | %s / %s | %s |\n",
		r.N, s(r.Converge), s(r.FloorParallel), s(r.FloorSerial), ratio(r.Converge, r.FloorParallel), s(r.Wave),
		ms(pct(r.Latency, 50)), ms(pct(r.Latency, 99)), ms(pct(r.SlowLatency, 50)), ms(pct(r.SlowLatency, 99)), r.memoryCell())
	_, _ = fmt.Fprintf(w, "\nAPI writes to converge: %d (%.1f per deployment); at steady state over %s: %d writes, %.1f Flink REST calls per deployment.\n",
		r.ConvergeWrites, float64(r.ConvergeWrites)/float64(r.N), r.SteadyWindow, r.SteadyWrites, r.SteadyRESTPerDeployment)
	if r.FloorParallel > 0 {
		_, _ = fmt.Fprintf(w, "The floor ran %s.\n", r.floorWhere())
	}
	_, _ = fmt.Fprintf(w, "Writes per deployment to converge, by request: %s.\n", r.perDeployment(r.ConvergeWritesByKind, "%.1f"))
	_, _ = fmt.Fprintf(w, "Reads per deployment to converge: %s.\n", r.perDeployment(r.ConvergeReadsByKind, "%.2f"))
	_, _ = fmt.Fprintf(w, "The pod simulator's and fakeflink's writes per deployment to converge (not in the floor): %s.\n",
		r.perDeployment(r.WorldConvergeWrites, "%.1f"))
	_, _ = fmt.Fprintf(w, "CPU to converge, by process: %s.\n", cpuSplit(r.ConvergeCPU, r.Converge, runtime.NumCPU()))
	_, _ = fmt.Fprintf(w, "ClusterIP allocations, which kube-apiserver makes one at a time: to converge %s; in the floor (16 writers) %s.\n",
		r.ConvergeAllocations.share(r.Converge, r.ConvergeAllocationsRead), r.FloorAllocations.share(r.FloorParallel, r.FloorAllocationsRead))
	if r.Wave > 0 {
		_, _ = fmt.Fprintf(w, "CPU in the wave, by process: %s.\n", cpuSplit(r.WaveCPU, r.Wave, runtime.NumCPU()))
	}
	_, _ = fmt.Fprintf(w, "Writes at steady state, by request: %s.\n", mostFirst(r.SteadyWritesByKind, func(n int64) string { return strconv.FormatInt(n, 10) }))
	_, _ = fmt.Fprintf(w, "Events written at steady state (new, or a series written), by type and reason: %s.\n", mostFirst(r.SteadyEvents, func(n int64) string { return strconv.FormatInt(n, 10) }))
	_, _ = fmt.Fprintf(w, "Requests the API server failed or did not answer: %s.\n", mostFirst(r.Failures, func(n int64) string { return strconv.FormatInt(n, 10) }))
	_, _ = fmt.Fprintf(w, "REST calls to the hung JobManagers while the healthy ones changed: %d (each waits for the client timeout).\n", r.HungCalls)
	if r.Bystanders {
		_, _ = fmt.Fprintf(w, "With %d ConfigMaps and %d Pods that are not the operator's added: operator heap %.1f → %.1f MB.\n",
			BystanderConfigMaps, BystanderPods, r.BystanderBaseMB, r.BystanderHeapMB)
	}
	if r.Hostile {
		_, _ = fmt.Fprintf(w, "With %d JobManagers answering 20 MiB or endless answers and %d ConfigMaps of 1 MB with Flink's labels: operator heap %.1f → %.1f MB, resident set %.0f → %.0f MB (peak %.0f MB).\n",
			r.HostileJobManagers, HostileConfigMaps, r.HostileBaseHeapMB, r.HostileHeapMB, r.HostileBaseRSSMB, r.HostileRSSMB, r.HostilePeakRSSMB)
	}
	if r.Apart {
		_, _ = fmt.Fprintf(w, "Operator process: CPU %.1f s to converge (%.1f ms per deployment), %.1f s over the steady window; resident set %.0f MB at steady state, %.0f MB at its peak.\n",
			r.OperatorCPU.Seconds(), r.OperatorCPU.Seconds()*1000/float64(max(r.N, 1)), r.SteadyCPU.Seconds(), r.OperatorRSSMB, r.OperatorPeakRSSMB)
		_, _ = fmt.Fprintf(w, "Harness process (API server client, pod simulator, %d fakeflink clusters, proxies) at steady state: heap %.0f MB, RSS %.0f MB; load average %s; %d CPUs.\n",
			r.N, r.HeapMB, r.RSSMB, loadavg(), runtime.NumCPU())
		return
	}
	_, _ = fmt.Fprintf(w, "Process heap at steady state %.0f MB (the pod simulator and %d fakeflink clusters included); load average %s; %d CPUs.\n",
		r.HeapMB, r.N, loadavg(), runtime.NumCPU())
}

// memoryHeader and memoryCell are the memory column: the operator process's own heap and
// resident set when it ran apart, else its estimated heap and the shared process's RSS.
func (r *Report) memoryHeader() string {
	if r.Apart {
		return "operator heap / RSS (peak)"
	}
	return "operator heap / process RSS"
}

func (r *Report) memoryCell() string {
	if r.Apart {
		return fmt.Sprintf("%.0f / %.0f (%.0f) MB", r.OperatorHeapMB, r.OperatorRSSMB, r.OperatorPeakRSSMB)
	}
	return fmt.Sprintf("%.1f / %.0f MB", r.OperatorHeapMB, r.RSSMB)
}

func (r *Report) slowPercent() int {
	if r.N == 0 {
		return 0
	}
	return r.Slow * 100 / r.N
}

func ms(d time.Duration) string {
	if d < 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// pct is the p-th percentile of sorted (−1 when empty).
func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return -1
	}
	i := (len(sorted)*p + 99) / 100
	return sorted[max(0, min(i, len(sorted))-1)]
}

// memory is the heap in use after a collection and the process's resident set, in MB.
func memory() (heap, rss float64) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	heap = float64(m.HeapInuse) / (1 << 20)
	if data, err := os.ReadFile("/proc/self/status"); err == nil {
		rss = statusMB(string(data), "VmRSS:")
	}
	return heap, rss
}

func loadavg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(data))[:3], " ")
}

// deployment is a savepoint-mode application deployment with checkpoints every 10 s;
// autoscaled, its job runs fakeflink's workload under the autoscaler; in the given mode.
func deployment(name string, autoscaled bool, mode flinkv1beta1.KubernetesDeploymentMode) *flinkv1beta1.FlinkDeployment {
	p := int32(1)
	d := &flinkv1beta1.FlinkDeployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: flinkv1beta1.FlinkDeploymentSpec{
			Image: "flink:1.20", FlinkVersion: "v1_20", Mode: mode,
			FlinkConfiguration: flinkv1beta1.NewFlinkConfiguration(map[string]string{
				"taskmanager.numberOfTaskSlots": "4", "execution.checkpointing.interval": "10s",
				"state.checkpoints.dir": "file:///data/cp", "state.savepoints.dir": "file:///data/sp",
			}),
			Job: &flinkv1beta1.JobSpec{JarURI: "local:///opt/flink/job.jar", Parallelism: &p, UpgradeMode: flinkv1beta1.UpgradeModeSavepoint},
		},
	}
	if autoscaled {
		for k, v := range map[string]string{
			"jobmanager.scheduler": "adaptive", "fakeflink.workload.input": "constant:500",
			"fakeflink.workload.capacities": "1000,2000,4000", "job.autoscaler.enabled": "true",
			"job.autoscaler.metrics.window": "5m", "job.autoscaler.stabilization.interval": "1m",
		} {
			d.Spec.FlinkConfiguration.Set(k, v)
		}
	}
	return d
}

// perDeployment lists counts per deployment, most first, each in format.
func (r *Report) perDeployment(counts map[string]int64, format string) string {
	return mostFirst(counts, func(n int64) string { return fmt.Sprintf(format, float64(n)/float64(max(r.N, 1))) })
}

// mostFirst lists counts, the largest first, each as its key and show(count); "none" when
// there are none.
func mostFirst(counts map[string]int64, show func(int64) string) string {
	if len(counts) == 0 {
		return "none"
	}
	kinds := slices.Collect(maps.Keys(counts))
	slices.SortFunc(kinds, func(a, b string) int {
		return cmp.Or(cmp.Compare(counts[b], counts[a]), strings.Compare(a, b))
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = k + " " + show(counts[k])
	}
	return strings.Join(parts, ", ")
}

// floorWhere says which API server the floor ran on.
func (r *Report) floorWhere() string {
	if r.FreshFloor {
		return "on a fresh API server after the run"
	}
	return "on the fleet's API server after the phases, with the operator idle"
}
