package fleet

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
)

// operatorFrames name the code whose live heap is the operator's: its packages, the manager's
// cache and controllers, client-go's informers, and the watch decoders that fill them (the
// harness's own watches copy what they keep, under harness frames).
var operatorFrames = []string{
	"github.com/flinkop/flinkop/operator/",
	"sigs.k8s.io/controller-runtime/pkg/cache",
	"sigs.k8s.io/controller-runtime/pkg/internal",
	"k8s.io/client-go/tools/cache",
	"k8s.io/apimachinery/pkg/watch",
	"k8s.io/client-go/rest/watch",
}

// operatorHeapMB estimates the operator's live heap, in MB: the heap profile's in-use bytes of
// the allocations made under an operator frame (see operatorFrames), scaled for sampling as
// pprof scales them. The pod simulator and the fakeflink clusters share the process; their
// allocations are not counted.
func operatorHeapMB() float64 {
	runtime.GC()
	runtime.GC() // the profile describes the heap as of the last completed collection
	n, _ := runtime.MemProfile(nil, false)
	records := make([]runtime.MemProfileRecord, n+64)
	n, ok := runtime.MemProfile(records, false)
	if !ok {
		return -1
	}
	rate := float64(runtime.MemProfileRate)
	var bytes float64
	for _, r := range records[:n] {
		if r.InUseBytes() <= 0 || !underOperator(r.Stack()) {
			continue
		}
		bytes += scaled(float64(r.InUseObjects()), float64(r.InUseBytes()), rate)
	}
	return bytes / (1 << 20)
}

// underOperator reports whether an allocation was made under an operator frame and not under
// the harness (the pod simulator's cache copies its objects under the harness: see detach).
func underOperator(stack []uintptr) bool {
	frames := runtime.CallersFrames(stack)
	operator := false
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, "github.com/flinkop/flinkop/harness/") {
			return false
		}
		for _, p := range operatorFrames {
			operator = operator || strings.HasPrefix(f.Function, p)
		}
		if !more {
			return operator
		}
	}
}

// scaled undoes the heap profile's sampling: an allocation of avg bytes is sampled with
// probability 1-exp(-avg/rate).
func scaled(count, size, rate float64) float64 {
	if count == 0 || size == 0 || rate <= 1 {
		return size
	}
	avg := size / count
	return size / (1 - math.Exp(-avg/rate))
}

// writeHeapProfile writes the heap profile to path (nothing when path is empty).
func writeHeapProfile(path string) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		_ = f.Close()
		return fmt.Errorf("heap profile: %w", err)
	}
	return f.Close()
}
