package fleet

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// clockTicks is the unit of a process's CPU times in /proc/PID/stat (USER_HZ, 100 on Linux).
const clockTicks = 100

// harnessProcess names this process in a CPU split: the benchmark's clients, the pod
// simulator, the fakeflink clusters and the proxies (and the operator, unless it runs apart).
const harnessProcess = "harness"

// processCPU is the CPU time (user and system) used so far by this process (as
// harnessProcess) and by each process it started (kube-apiserver, etcd, the operator), by
// command name; nil where /proc cannot be read.
func processCPU() map[string]time.Duration {
	self := os.Getpid()
	out := map[string]time.Duration{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // ended meanwhile
		}
		pid, comm, ppid, cpu, ok := parseStat(string(data))
		switch {
		case !ok:
		case pid == self:
			out[harnessProcess] += cpu
		case ppid == self:
			out[comm] += cpu
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// parseStat reads a /proc/PID/stat line: "pid (comm) state ppid … utime stime …".
func parseStat(line string) (pid int, comm string, ppid int, cpu time.Duration, ok bool) {
	open, end := strings.IndexByte(line, '('), strings.LastIndexByte(line, ')')
	if open < 0 || end < open {
		return 0, "", 0, 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line[:open]))
	if err != nil {
		return 0, "", 0, 0, false
	}
	fields := strings.Fields(line[end+1:])
	if len(fields) < 13 {
		return 0, "", 0, 0, false
	}
	ppid, err1 := strconv.Atoi(fields[1])
	utime, err2 := strconv.ParseInt(fields[11], 10, 64)
	stime, err3 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, "", 0, 0, false
	}
	return pid, line[open+1 : end], ppid, time.Duration(utime+stime) * time.Second / clockTicks, true
}

// cpuSince is the CPU each process used between before and after (processCPU's maps).
func cpuSince(after, before map[string]time.Duration) map[string]time.Duration {
	out := map[string]time.Duration{}
	for k, d := range after {
		if used := d - before[k]; used > 0 {
			out[k] = used
		}
	}
	return out
}

// cpuSplit lists CPU by process, most first, with each one's share of the machine's capacity
// over wall (its CPU time divided by wall × CPUs).
func cpuSplit(used map[string]time.Duration, wall time.Duration, cpus int) string {
	if len(used) == 0 {
		return "not measured"
	}
	names := make([]string, 0, len(used))
	var total time.Duration
	for k, d := range used {
		names = append(names, k)
		total += d
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(used[b], used[a]), strings.Compare(a, b)) })
	capacity := wall.Seconds() * float64(max(cpus, 1))
	parts := make([]string, 0, len(names)+1)
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s %.0f s (%.0f %%)", k, used[k].Seconds(), 100*used[k].Seconds()/capacity))
	}
	parts = append(parts, fmt.Sprintf("together %.0f %% of %d CPUs × %.0f s", 100*total.Seconds()/capacity, cpus, wall.Seconds()))
	return strings.Join(parts, ", ")
}
