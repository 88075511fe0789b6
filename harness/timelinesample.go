package harness

import (
	"fmt"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// Timeline lanes of a resource: its lifecycle state and JobManager status as the operator
// reports them, and its job's state as fakeflink has it.
const (
	LaneLifecycle  = "lifecycle"
	LaneJobManager = "JobManager"
	LaneJob        = "job"
)

// timelineSeen is what the sampler already drew: snapshots by job and path, and failovers
// (snapshots), job starts by JobManager incarnation.
type timelineSeen struct {
	snapshots map[string]bool
	starts    map[string]int
}

// sampleTimeline draws a FlinkDeployment into the trace at the current step: its lifecycle and
// JobManager states and, for an application deployment, the state of its newest job in
// fakeflink, the job's offset when it is not running (a running job's line goes through its
// snapshots), a mark for each snapshot its jobs completed, and one for each start and each of
// Flink's failovers with the state it went back to. The offset line and the marks are
// fakeflink's record, never the operator's: a start from older state shows as a drop.
func (c *Checker) sampleTimeline(d *flinkv1beta1.FlinkDeployment, cl *fakeflink.Cluster) {
	t, now, name := c.w.Trace, c.w.Now(), d.Name
	t.State(now, name, LaneLifecycle, string(d.Status.LifecycleState))
	t.State(now, name, LaneJobManager, string(d.Status.JobManagerDeploymentStatus))
	if cl == nil || d.Spec.Job == nil { // a session cluster's jobs are its session jobs'
		t.State(now, name, LaneJob, "")
		return
	}
	if c.timeline.snapshots == nil {
		c.timeline = timelineSeen{snapshots: map[string]bool{}, starts: map[string]int{}}
	}
	key := fmt.Sprintf("%s/%d", name, c.w.Sim.Incarnation(c.w.Namespace, act.JobManagerName(name)))
	starts := cl.Starts()
	for _, s := range starts[min(c.timeline.starts[key], len(starts)):] {
		text := "job " + s.JobID + " started from empty state"
		if s.RestorePath != "" {
			text = fmt.Sprintf("job %s restored %s (offset %d)", s.JobID, s.RestorePath, s.Offset)
		}
		t.Mark(s.Time, name, MarkRestore, s.Offset, text)
	}
	c.timeline.starts[key] = len(starts)
	jobs := cl.Jobs()
	if len(jobs) == 0 {
		t.State(now, name, LaneJob, "")
		return
	}
	for _, j := range jobs {
		for _, f := range j.Failovers() { // Flink's own restarts go back to older state too
			id := fmt.Sprintf("%s failover %d", j.ID, f.At.UnixNano())
			if !c.timeline.snapshots[id] {
				c.timeline.snapshots[id] = true
				t.Mark(f.At, name, MarkRestore, f.Offset, fmt.Sprintf("Flink restarted job %s from offset %d", j.ID, f.Offset))
			}
		}
		for _, s := range j.Checkpoints() {
			id := fmt.Sprintf("%s %s#%d", j.ID, s.Path, s.ID)
			if c.timeline.snapshots[id] {
				continue
			}
			c.timeline.snapshots[id] = true
			kind := MarkCheckpoint
			if s.Kind == fakeflink.KindSavepoint {
				kind = MarkSavepoint
			}
			t.Mark(s.Time, name, kind, s.Offset, fmt.Sprintf("%s %d of job %s at %s (offset %d)", kind, s.ID, j.ID, s.Path, s.Offset))
		}
	}
	j := jobs[len(jobs)-1]
	t.State(now, name, LaneJob, string(j.Status))
	if j.Status != fakeflink.StatusRunning { // Offset of a running job would advance its workload model
		t.Offset(now, name, j.Offset(now))
	}
}
