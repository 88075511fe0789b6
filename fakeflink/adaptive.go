package fakeflink

import (
	"slices"
	"time"
)

// AdaptiveStabilization is how long the adaptive scheduler waits with fewer slots than a job
// asks for before it runs the job with those (Flink's
// jobmanager.adaptive-scheduler.resource-stabilization-timeout, 10 s by default).
const AdaptiveStabilization = 10 * time.Second

// rescaleUp restarts one running job the adaptive scheduler ran with fewer slots than it asks
// for, when a TaskManager joins with free slots: Flink's adaptive scheduler rescales on new
// resources (jobmanager.adaptive-scheduler.min-parallelism-increase, 1 by default). One job
// at a time, so that the restarting job takes only free slots and slots it held, never those
// of another job (Flink never shrinks a running job because resources arrived).
func (c *Cluster) rescaleUp() {
	if c.totalSlots()-c.UsedSlots() <= 0 {
		return
	}
	for _, j := range c.orderedJobs() {
		if j.slotCap > 0 && j.Status == StatusRunning && j.desiredSlots() > j.slots() {
			_ = j.setStatus(StatusRestarting, c.Now())
			j.nextAction = c.Now()
			return
		}
	}
}

// running is the parallelism a vertex configured at p runs with: p, or as many subtasks as
// the slots the adaptive scheduler found (slotCap) when there were fewer.
func (j *Job) running(p int) int {
	if j.slotCap > 0 {
		return min(p, j.slotCap)
	}
	return p
}

// desired are the vertices' configured parallelism (their resource requirements' upper
// bounds), in chain order, whatever they run with.
func (j *Job) desired() []int {
	out := make([]int, len(j.vertexNames()))
	for i := range out {
		out[i] = j.vertexParallelism(i)
	}
	return out
}

// desiredSlots is the number of slots the job asks for: slots without the adaptive
// scheduler's cap.
func (j *Job) desiredSlots() int { return max(j.parallelism, slices.Max(append(j.desired(), 0))) }
