package decide

import (
	"maps"
	"strconv"
	"strings"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// clusterInfo fills status.clusterInfo as the Apache operator does: the Flink version and
// revision the JobManager reports (GET /config, read once per deploy), and the cluster's
// total CPU and memory (bytes): the JobManager's from the spec times its replicas, the
// TaskManagers' times the observed TaskManager replicas. A deploy clears it, so the next
// JobManager's version is read again.
func (s *step) clusterInfo() {
	o := s.in.Observed
	info := maps.Clone(s.st.ClusterInfo)
	if v := o.Version; v != nil && v.Version != "" {
		health, kept := info[ClusterHealthInfoKey]
		info = map[string]string{flinkv1beta1.ClusterInfoFlinkVersion: v.Version, flinkv1beta1.ClusterInfoFlinkRevision: v.Revision}
		if kept {
			info[ClusterHealthInfoKey] = health
		}
	}
	if info == nil || s.last == nil || o.JobManager == nil {
		return
	}
	spec := s.last.Spec
	tms, native := s.nativeTaskManagers()
	if o.TaskManager != nil && !native {
		tms = o.TaskManager.Replicas
	}
	jmReplicas := int32(1)
	var jm, tm flinkv1beta1.Resource
	if spec.JobManager != nil {
		jm = spec.JobManager.Resource
		if spec.JobManager.Replicas != nil {
			jmReplicas = *spec.JobManager.Replicas
		}
	}
	if spec.TaskManager != nil {
		tm = spec.TaskManager.Resource
	}
	cpu := float64(jmReplicas)*cpuOf(jm) + float64(tms)*cpuOf(tm)
	mem := int64(jmReplicas)*memoryOf(jm) + int64(tms)*memoryOf(tm)
	info[flinkv1beta1.ClusterInfoTotalCPU] = javaDouble(cpu)
	info[flinkv1beta1.ClusterInfoTotalMemory] = strconv.FormatInt(mem, 10)
	s.st.ClusterInfo = info
}

// cpuOf is a role's CPU, 1.0 when unset (kubernetes.jobmanager.cpu and
// kubernetes.taskmanager.cpu default to 1.0).
func cpuOf(r flinkv1beta1.Resource) float64 {
	if r.CPU == nil {
		return 1
	}
	return *r.CPU
}

// memoryOf is a role's process memory in bytes, 0 when unset or unreadable.
func memoryOf(r flinkv1beta1.Resource) int64 {
	q, err := flinkv1beta1.ParseFlinkMemory(r.Memory)
	if r.Memory == "" || err != nil {
		return 0
	}
	return q.Value()
}

// javaDouble formats f as Java's String.valueOf(double) does for ordinary values ("2.0", "0.5").
func javaDouble(f float64) string {
	out := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(out, ".") {
		out += ".0"
	}
	return out
}
