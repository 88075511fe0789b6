package act

import (
	"maps"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// roleResources is what a JobManager's or TaskManager's resource fields ask for, read as the
// Apache operator reads them: the Kubernetes-style resources field wins over the resource
// shorthand when it holds any request or limit; a request falls back to its limit; memory is
// read as Flink reads a memory size ("2048m" is 2048 MiB, "2Gi" is a Kubernetes quantity).
type roleResources struct {
	// Memory is the process size in Flink's syntax ("" for none).
	Memory string
	// CPU is the number of cores (nil for none).
	CPU *float64
	// CPULimitFactor and MemoryLimitFactor are limit / request, when both are given.
	CPULimitFactor, MemoryLimitFactor float64
	// Container are the main container's requests and limits.
	Container corev1.ResourceRequirements
}

// resolveResources reads a role's resource fields.
func resolveResources(res flinkv1beta1.Resource, reqs *corev1.ResourceRequirements) roleResources {
	if !hasRequirements(reqs) {
		out := roleResources{Memory: flinkMemorySize(res.Memory), CPU: res.CPU}
		if r := resourceList(res); len(r) > 0 {
			out.Container = corev1.ResourceRequirements{Requests: r, Limits: maps.Clone(r)}
		}
		return out
	}
	out := roleResources{Container: *reqs.DeepCopy()}
	if q, ok := requestOrLimit(reqs, corev1.ResourceMemory); ok {
		out.Memory = flinkMemorySize(q.String())
	}
	if q, ok := requestOrLimit(reqs, corev1.ResourceCPU); ok {
		cpu := q.AsApproximateFloat64()
		out.CPU = &cpu
	}
	out.CPULimitFactor = limitFactor(reqs, corev1.ResourceCPU)
	out.MemoryLimitFactor = limitFactor(reqs, corev1.ResourceMemory)
	// The container's memory is what Flink sizes its process to, not the quantity's
	// Kubernetes reading: "2048m" is 2048 MiB to Flink and 2.048 bytes to Kubernetes.
	for _, list := range []corev1.ResourceList{out.Container.Requests, out.Container.Limits} {
		if q, ok := list[corev1.ResourceMemory]; ok {
			if m, ok := flinkMemory(q.String()); ok {
				list[corev1.ResourceMemory] = m
			}
		}
	}
	return out
}

// hasRequirements reports whether reqs holds any request or limit (an empty resources block
// leaves the resource shorthand in force).
func hasRequirements(reqs *corev1.ResourceRequirements) bool {
	return reqs != nil && (len(reqs.Requests) > 0 || len(reqs.Limits) > 0)
}

func requestOrLimit(reqs *corev1.ResourceRequirements, name corev1.ResourceName) (resource.Quantity, bool) {
	if q, ok := reqs.Requests[name]; ok {
		return q, true
	}
	q, ok := reqs.Limits[name]
	return q, ok
}

// limitFactor is limit / request when both are set and the request is positive, else 0.
func limitFactor(reqs *corev1.ResourceRequirements, name corev1.ResourceName) float64 {
	req, okReq := reqs.Requests[name]
	lim, okLim := reqs.Limits[name]
	if !okReq || !okLim || req.AsApproximateFloat64() <= 0 {
		return 0
	}
	return lim.AsApproximateFloat64() / req.AsApproximateFloat64()
}

// setResourceConfig writes a role's resources into its Flink options.
func setResourceConfig(role string, r roleResources, conf map[string]string) {
	if r.Memory != "" {
		conf[role+".memory.process.size"] = r.Memory
	}
	if r.CPU != nil {
		conf["kubernetes."+role+".cpu"] = strconv.FormatFloat(*r.CPU, 'f', -1, 64)
	}
	if r.CPULimitFactor > 0 {
		conf["kubernetes."+role+".cpu.limit-factor"] = strconv.FormatFloat(r.CPULimitFactor, 'f', -1, 64)
	}
	if r.MemoryLimitFactor > 0 {
		conf["kubernetes."+role+".memory.limit-factor"] = strconv.FormatFloat(r.MemoryLimitFactor, 'f', -1, 64)
	}
}
