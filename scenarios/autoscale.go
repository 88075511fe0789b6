package scenarios

import (
	"fmt"

	"pgregory.net/rapid"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// autoscaleSpec turns the job's autoscaler on (over fakeflink's workload model: an input of
// steps, a source slower than its sink, the adaptive scheduler) or off, or resets it.
func autoscaleSpec(t *rapid.T, spec *flinkv1beta1.FlinkDeploymentSpec) {
	switch rapid.IntRange(0, 2).Draw(t, "autoscaler") {
	case 0:
		spec.FlinkConfiguration.Set("job.autoscaler.enabled", "false")
		return
	case 1:
		n := int64(rapid.IntRange(1, 9).Draw(t, "reset-nonce"))
		spec.Job.AutoscalerResetNonce = &n
		return
	}
	low, high := rapid.IntRange(100, 2000).Draw(t, "input-low"), rapid.IntRange(500, 6000).Draw(t, "input-high")
	for k, v := range map[string]string{
		"jobmanager.scheduler":                  "adaptive",
		"fakeflink.workload.input":              fmt.Sprintf("steps:0s=%d,3min=%d,9min=%d", low, high, low),
		"fakeflink.workload.capacities":         "1000,2000",
		"fakeflink.workload.restart-time":       "5s",
		"job.autoscaler.enabled":                "true",
		"job.autoscaler.metrics.window":         "2m",
		"job.autoscaler.stabilization.interval": "1m",
		"job.autoscaler.scale-down.interval":    rapid.SampledFrom([]string{"0", "3m"}).Draw(t, "scale-down-interval"),
		"job.autoscaler.catch-up.duration":      "5m",
		"job.autoscaler.restart.time":           "1m",
		"job.autoscaler.vertex.max-parallelism": "8",
	} {
		spec.FlinkConfiguration.Set(k, v)
	}
}

// autoscalerOff turns the autoscaler off for the quiet check at the end (it writes its state
// at every look by design); it reports whether the spec changed.
func autoscalerOff(spec *flinkv1beta1.FlinkDeploymentSpec) bool {
	if v, _ := spec.FlinkConfiguration.Get("job.autoscaler.enabled"); v != "true" {
		return false
	}
	spec.FlinkConfiguration.Set("job.autoscaler.enabled", "false")
	return true
}
