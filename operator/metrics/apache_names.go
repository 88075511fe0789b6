package metrics

import (
	"math"
	"strconv"
	"strings"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// The kinds besides the two job kinds whose namespace counts the Apache metrics keep (the
// resourcetype label).
const (
	// KindSnapshot counts FlinkStateSnapshots by type and state.
	KindSnapshot flinkv1beta1.JobKind = "FlinkStateSnapshot"
	// KindBlueGreen counts FlinkBlueGreenDeployments by blue/green state and job status.
	KindBlueGreen flinkv1beta1.JobKind = "FlinkBlueGreenDeployment"
)

// The values whose gauges Apache's operator registers (at 0) when a namespace gets its first
// resource of a kind: the API's.
var (
	jobManagerStatuses = values(flinkv1beta1.JobManagerReady, flinkv1beta1.JobManagerDeployedNotReady, flinkv1beta1.JobManagerDeploying,
		flinkv1beta1.JobManagerMissing, flinkv1beta1.JobManagerError)
	snapshotStates = values(flinkv1beta1.SnapshotTriggerPending, flinkv1beta1.SnapshotInProgress, flinkv1beta1.SnapshotCompleted,
		flinkv1beta1.SnapshotFailed, flinkv1beta1.SnapshotAbandoned)
	blueGreenStates = values(flinkv1beta1.BlueGreenInitializingBlue, flinkv1beta1.BlueGreenActiveBlue, flinkv1beta1.BlueGreenSavepointingBlue,
		flinkv1beta1.BlueGreenTransitioningToGreen, flinkv1beta1.BlueGreenActiveGreen, flinkv1beta1.BlueGreenSavepointingGreen,
		flinkv1beta1.BlueGreenTransitioningToBlue)
	// flinkJobStatuses are Flink's JobStatus values (the API's, without the operator's own
	// CRON_SCHEDULED).
	flinkJobStatuses = values(flinkv1beta1.JobStatusInitializing, flinkv1beta1.JobStatusCreated, flinkv1beta1.JobStatusRunning,
		flinkv1beta1.JobStatusFailing, flinkv1beta1.JobStatusFailed, flinkv1beta1.JobStatusCancelling, flinkv1beta1.JobStatusCanceled,
		flinkv1beta1.JobStatusFinished, flinkv1beta1.JobStatusRestarting, flinkv1beta1.JobStatusSuspended, flinkv1beta1.JobStatusReconciling)
)

// values are enum constants as metric name parts.
func values[T ~string](vs ...T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// initialCounts are the namespace gauges of kind that exist (at 0) from a namespace's first
// resource of kind on.
func initialCounts(kind flinkv1beta1.JobKind) []string {
	var names []string
	each := func(format string, values []string) {
		for _, v := range values {
			names = append(names, strings.Replace(format, "%", v, 1))
		}
	}
	switch kind {
	case flinkv1beta1.JobKindDeployment:
		each("Lifecycle_State_%_Count", LifecycleStates)
		each("JmDeploymentStatus_%_Count", jobManagerStatuses)
	case flinkv1beta1.JobKindSessionJob:
		each("Lifecycle_State_%_Count", LifecycleStates)
	case KindSnapshot:
		for _, typ := range []string{"Checkpoint", "Savepoint"} {
			names = append(names, typ+"_Count")
			each(typ+"_State_%_Count", snapshotStates)
		}
	case KindBlueGreen:
		names = append(names, "Failures")
		each("BlueGreenState_%_Count", blueGreenStates)
		each("JobStatus_%_Count", flinkJobStatuses)
	}
	return names
}

// countNames are the namespace-scope counts a resource of kind in state s adds one to:
//   - FlinkDeployment: Count, Lifecycle_State_<STATE>_Count, JmDeploymentStatus_<STATUS>_Count,
//     FlinkVersion_<V>_Count, FlinkMinorVersion_<X_Y>_Count;
//   - FlinkSessionJob: Count, Lifecycle_State_<STATE>_Count;
//   - FlinkStateSnapshot (once it has a state): <Checkpoint|Savepoint>_Count and
//     <Checkpoint|Savepoint>_State_<STATE>_Count;
//   - FlinkBlueGreenDeployment: Count, BlueGreenState_<STATE>_Count, JobStatus_<STATUS>_Count.
func countNames(kind flinkv1beta1.JobKind, s ResourceState) []string {
	switch kind {
	case KindSnapshot:
		if s.Lifecycle == "" {
			return nil // as Apache: a snapshot is counted once it has a state
		}
		typ := "Checkpoint"
		if s.Savepoint {
			typ = "Savepoint"
		}
		return []string{typ + "_Count", typ + "_State_" + sanitize(s.Lifecycle) + "_Count"}
	case KindBlueGreen:
		names := []string{"Count"}
		if s.Lifecycle != "" {
			names = append(names, "BlueGreenState_"+sanitize(s.Lifecycle)+"_Count")
		}
		if s.JobStatus != "" {
			names = append(names, "JobStatus_"+sanitize(s.JobStatus)+"_Count")
		}
		return names
	}
	names := []string{"Count"}
	if s.Lifecycle != "" {
		names = append(names, "Lifecycle_State_"+s.Lifecycle+"_Count")
	}
	if kind != flinkv1beta1.JobKindDeployment {
		return names
	}
	if s.JobManager != "" {
		names = append(names, "JmDeploymentStatus_"+s.JobManager+"_Count")
	}
	if v := sanitize(s.FlinkVersion); v != "" {
		names = append(names, "FlinkVersion_"+v+"_Count")
		if major, rest, ok := strings.Cut(s.FlinkVersion, "."); ok {
			minor, _, _ := strings.Cut(rest, ".")
			names = append(names, "FlinkMinorVersion_"+sanitize(major+"."+minor)+"_Count")
		}
	}
	return names
}

// sanitize writes v as a metric name part: [A-Za-z0-9_] only, at most maxVersion characters.
func sanitize(v string) string {
	if len(v) > maxVersion {
		v = v[:maxVersion]
	}
	return strings.Map(func(r rune) rune {
		if r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			return r
		}
		return '_'
	}, v)
}

// Usage reads a FlinkDeployment's status.clusterInfo total-cpu and total-memory (bytes) for
// ResourceState; what does not parse, or is not a finite non-negative number, is 0 (as
// Apache's operator reads them).
func Usage(clusterInfo map[string]string) (cpu float64, memory int64) {
	cpu, err := strconv.ParseFloat(clusterInfo[flinkv1beta1.ClusterInfoTotalCPU], 64)
	if err != nil || math.IsInf(cpu, 0) || math.IsNaN(cpu) || cpu < 0 {
		cpu = 0
	}
	memory, err = strconv.ParseInt(clusterInfo[flinkv1beta1.ClusterInfoTotalMemory], 10, 64)
	if err != nil || memory < 0 {
		memory = 0
	}
	return cpu, memory
}
