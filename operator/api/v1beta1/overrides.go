package v1beta1

import (
	"strconv"
	"strings"
)

// Bounds of pipeline.jobvertex-parallelism-overrides as the operator reads it.
const (
	// KeyParallelismOverrides sets per-vertex parallelism ("vertexId:parallelism,…").
	KeyParallelismOverrides = "pipeline.jobvertex-parallelism-overrides"
	// MaxParallelismOverrides bounds the entries read.
	MaxParallelismOverrides = 1024
)

// ParseParallelismOverrides reads pipeline.jobvertex-parallelism-overrides: entries that are
// not "id:p" with p from 1 to MaxParallelism are skipped, and at most
// MaxParallelismOverrides entries are read. ok is false when something was skipped.
func ParseParallelismOverrides(v string) (out map[string]int32, ok bool) {
	ok = true
	if strings.TrimSpace(v) == "" {
		return nil, true
	}
	for i, kv := range strings.Split(v, ",") {
		if i >= MaxParallelismOverrides {
			return out, false
		}
		id, p, cut := strings.Cut(strings.TrimSpace(kv), ":")
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if !cut || err != nil || n < 1 || n > MaxParallelism || strings.TrimSpace(id) == "" {
			ok = false
			continue
		}
		if out == nil {
			out = map[string]int32{}
		}
		out[strings.TrimSpace(id)] = int32(n)
	}
	return out, ok
}
