package autoscale

import (
	"errors"
	"strconv"
	"time"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/fakeflink/workload"
	"github.com/flinkop/flinkop/operator/autoscaler"
)

// DefaultConfig is `flinksim autoscale`'s job: a day-long sine of 1,000 to 9,000 records/s
// through a source, a map and a sink, under the autoscaler's defaults.
func DefaultConfig() map[string]string {
	return map[string]string{
		workload.KeyInput:             "sine:base=5000,amplitude=4000,period=1d",
		workload.KeyCapacities:        "1000,600,2000",
		workload.KeyRestartTime:       "1min",
		"parallelism.default":         "2",
		autoscaler.Prefix + "enabled": "true",
	}
}

// FromConfig reads a run from a job's Flink configuration, with the keys a FlinkDeployment
// gives its job: fakeflink.workload.* (the workload), job.autoscaler.* (the autoscaler),
// parallelism.default (every vertex's parallelism at the start) and pipeline.max-parallelism
// (the key groups; Flink's default for the start parallelism when unset).
func FromConfig(conf map[string]string, duration, every time.Duration) (Run, error) {
	spec, ok, err := workload.FromConfig(conf, fakeflink.ParseDuration)
	if err != nil {
		return Run{}, err
	}
	if !ok {
		return Run{}, errors.New(workload.KeyInput + " is not set: the job has no workload")
	}
	c, err := autoscaler.ParseConfig(conf, fakeflink.ParseDuration)
	if err != nil {
		return Run{}, err
	}
	p := 1
	if v, set := conf["parallelism.default"]; set {
		if p, err = strconv.Atoi(v); err != nil || p < 1 || p > fakeflink.UpperMaxParallelism {
			return Run{}, errors.New("parallelism.default: want a whole number from 1 to 32768")
		}
	}
	keyGroups := fakeflink.DefaultMaxParallelism(p)
	if v, set := conf[fakeflink.KeyMaxParallelism]; set {
		if keyGroups, err = strconv.Atoi(v); err != nil || keyGroups < p || keyGroups > fakeflink.UpperMaxParallelism {
			return Run{}, errors.New(fakeflink.KeyMaxParallelism + ": want a whole number from parallelism.default to 32768")
		}
	}
	start := make([]int, len(spec.Vertices))
	for i := range start {
		start[i] = p
	}
	return Run{Spec: spec, Start: start, KeyGroups: keyGroups, Config: c, Duration: duration, Every: every}, nil
}
