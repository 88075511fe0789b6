package workload

import (
	"fmt"
	"strings"
	"time"
)

// Configuration keys of the model, read from a job's Flink configuration (so the same
// workload runs in the harness and in the fakeflink image).
const (
	// KeyInput is the input schedule (see ParseSchedule); a job without it has no workload.
	KeyInput = "fakeflink.workload.input"
	// KeyCapacities are the records per second one subtask of each vertex processes, the
	// source's first and the sink's last, comma-separated (default DefaultCapacities).
	KeyCapacities = "fakeflink.workload.capacities"
	// KeyRestartTime is how long a job processes nothing after each (re)start (default
	// DefaultRestartTime).
	KeyRestartTime = "fakeflink.workload.restart-time"
)

// Defaults and bounds of the keys.
const (
	DefaultCapacities  = "1000,2000"
	DefaultRestartTime = 10 * time.Second
	// MaxVertices bounds the chain.
	MaxVertices = 32
	// MaxRestartTime bounds the restart time.
	MaxRestartTime = time.Hour
)

// FromConfig reads a job's workload from its configuration (durations read by dur, as Flink
// reads them). ok is false when the configuration sets no input: the job has no workload.
func FromConfig(conf map[string]string, dur func(string) (time.Duration, error)) (spec Spec, ok bool, err error) {
	input, ok := conf[KeyInput]
	if !ok {
		return Spec{}, false, nil
	}
	if spec.Input, err = ParseSchedule(input, dur); err != nil {
		return Spec{}, true, fmt.Errorf("%s: %w", KeyInput, err)
	}
	caps := DefaultCapacities
	if v, set := conf[KeyCapacities]; set {
		caps = v
	}
	parts := strings.Split(caps, ",")
	if len(parts) > MaxVertices {
		return Spec{}, true, fmt.Errorf("%s: %d vertices, want at most %d", KeyCapacities, len(parts), MaxVertices)
	}
	for i, p := range parts {
		c, err := parseRate(p)
		if err != nil || c == 0 {
			return Spec{}, true, fmt.Errorf("%s: vertex %d: want a capacity above 0 and at most %g", KeyCapacities, i+1, float64(MaxRate))
		}
		spec.Vertices = append(spec.Vertices, Vertex{Name: VertexName(i, len(parts)), Capacity: c})
	}
	spec.RestartTime = DefaultRestartTime
	if v, set := conf[KeyRestartTime]; set {
		if spec.RestartTime, err = dur(v); err != nil || spec.RestartTime < 0 || spec.RestartTime > MaxRestartTime {
			return Spec{}, true, fmt.Errorf("%s %q: want a duration from 0 to %s", KeyRestartTime, v, MaxRestartTime)
		}
	}
	return spec, true, nil
}

// VertexName names vertex i of a chain of n: "Source: fake-source" first, "Sink: fake-sink"
// last, "Map i" between.
func VertexName(i, n int) string {
	if i == 0 {
		return "Source: fake-source"
	}
	if i == n-1 {
		return "Sink: fake-sink"
	}
	return fmt.Sprintf("Map %d", i)
}
