package image

import (
	"fmt"
	"strconv"
	"strings"
)

// ClassIllegalConfiguration is the exception Flink's memory model throws.
const ClassIllegalConfiguration = "org.apache.flink.configuration.IllegalConfigurationException"

// role names a process's memory options: "jobmanager" or "taskmanager".
type role string

const (
	roleJobManager  role = "jobmanager"
	roleTaskManager role = "taskmanager"
)

func (r role) key(suffix string) string { return string(r) + ".memory." + suffix }

// optionString renders a memory option as Flink's ConfigOption.toString does.
func optionString(key string) string {
	return fmt.Sprintf("Key: '%s' , default: null (fallback keys: [])", key)
}

// rangeFraction is a fraction of a base size bounded by [min, max].
type rangeFraction struct {
	min, max MemorySize
	fraction float64
}

func (r rangeFraction) of(base MemorySize) MemorySize {
	return min(max(MemorySize(float64(base)*r.fraction), r.min), r.max)
}

// memoryConf reads memory options with their defaults.
type memoryConf struct {
	conf map[string]string
	err  error
}

func (m *memoryConf) size(key string, def MemorySize) (MemorySize, bool) {
	v, ok := m.conf[key]
	if !ok {
		return def, false
	}
	s, err := ParseMemorySize(v)
	if err != nil && m.err == nil {
		m.err = fmt.Errorf("Could not parse value '%s' for key '%s'.", v, key) //nolint:staticcheck,revive // Flink's message, verbatim
	}
	return s, true
}

func (m *memoryConf) fraction(key string, def float64) float64 {
	v, ok := m.conf[key]
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil && m.err == nil {
		m.err = fmt.Errorf("Could not parse value '%s' for key '%s'.", v, key) //nolint:staticcheck,revive // Flink's message, verbatim
	}
	return f
}

func (m *memoryConf) overhead(r role) rangeFraction {
	minSize, _ := m.size(r.key("jvm-overhead.min"), 192*MiB)
	maxSize, _ := m.size(r.key("jvm-overhead.max"), GiB)
	return rangeFraction{min: minSize, max: maxSize, fraction: m.fraction(r.key("jvm-overhead.fraction"), 0.1)}
}

// CheckMemory applies Flink's memory model for a JobManager or TaskManager process to conf
// (the effective configuration) and returns the IllegalConfigurationException message Flink
// would fail with, or "" when the process starts. The checks are those of Flink's
// JobManagerProcessUtils and TaskExecutorProcessUtils for the configurations an operator
// renders: a process size, a Flink memory size, or the fine-grained sizes.
func CheckMemory(component string, conf map[string]string) string {
	r := roleJobManager
	prefix := "JobManager memory configuration failed: "
	if component == ComponentTaskManager {
		r, prefix = roleTaskManager, "TaskManager memory configuration failed: "
	}
	m := &memoryConf{conf: conf}
	msg := m.derive(r)
	if m.err != nil {
		return prefix + m.err.Error()
	}
	if msg != "" {
		return prefix + msg
	}
	return ""
}

func (m *memoryConf) derive(r role) string {
	fineGrained := r.key("heap.size")
	required := []string{r.key("heap.size")}
	if r == roleTaskManager {
		fineGrained = r.key("task.heap.size")
		required = []string{r.key("task.heap.size"), r.key("managed.size")}
	}
	_, heapSet := m.size(fineGrained, 0)
	_, managedSet := m.size(r.key("managed.size"), 0)
	flinkSize, flinkSet := m.size(r.key("flink.size"), 0)
	processSize, processSet := m.size(r.key("process.size"), 0)
	switch {
	case heapSet && (r == roleJobManager || managedSet):
		return "" // the fine-grained sizes add up to whatever they are
	case flinkSet:
		return m.flinkMemory(r, flinkSize)
	case processSet:
		metaspace, _ := m.size(r.key("jvm-metaspace.size"), 256*MiB)
		overhead := m.overhead(r).of(processSize)
		if metaspace+overhead > processSize {
			return fmt.Sprintf("Sum of configured JVM Metaspace (%s) and JVM Overhead (%s) exceed configured Total Process Memory (%s).",
				metaspace, overhead, processSize)
		}
		return m.flinkMemory(r, processSize-metaspace-overhead)
	}
	return fmt.Sprintf("Either required fine-grained memory (%s), or Total Flink Memory size (%s), or Total Process Memory size (%s) need to be configured explicitly.",
		strings.Join(required, " and "), optionString(r.key("flink.size")), optionString(r.key("process.size")))
}

// flinkMemory splits the total Flink memory into its components and fails when the fixed
// ones do not fit.
func (m *memoryConf) flinkMemory(r role, total MemorySize) string {
	if r == roleJobManager {
		offHeap, _ := m.size(r.key("off-heap.size"), 128*MiB)
		if offHeap > total {
			return fmt.Sprintf("The configured Total Flink Memory (%s) is less than the configured Off-heap Memory (%s).", total, offHeap)
		}
		return ""
	}
	frameworkHeap, _ := m.size(r.key("framework.heap.size"), 128*MiB)
	frameworkOffHeap, _ := m.size(r.key("framework.off-heap.size"), 128*MiB)
	taskOffHeap, _ := m.size(r.key("task.off-heap.size"), 0)
	managed, ok := m.size(r.key("managed.size"), 0)
	if !ok {
		managed = rangeFraction{min: 0, max: 1 << 62, fraction: m.fraction(r.key("managed.fraction"), 0.4)}.of(total)
	}
	netMin, _ := m.size(r.key("network.min"), 64*MiB)
	netMax, _ := m.size(r.key("network.max"), GiB)
	network := rangeFraction{min: netMin, max: netMax, fraction: m.fraction(r.key("network.fraction"), 0.1)}.of(total)
	if frameworkHeap+frameworkOffHeap+taskOffHeap+managed+network > total {
		return fmt.Sprintf("Sum of configured Framework Heap Memory (%s), Framework Off-Heap Memory (%s), Task Off-Heap Memory (%s), Managed Memory (%s) and Network Memory (%s) exceed configured Total Flink Memory (%s).",
			frameworkHeap, frameworkOffHeap, taskOffHeap, managed, network, total)
	}
	return ""
}
