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

// timelineSeen is what the sampler already drew: job starts by JobManager incarnation (the
// snapshots and failovers are marked as noRegression first records them).
type timelineSeen struct {
	starts map[string]int
}

// sampleTimeline draws a FlinkDeployment into the trace at the current step: its lifecycle and
// JobManager states and, for an application deployment, the state of its newest job in
// fakeflink, the job's offset when it is not running (a running job's line goes through its
// snapshots), and a mark for each start with the state it went back to; noRegression marks
// the snapshots and Flink's failovers as it records them (markSnapshot, markFailover). The
// offset line and the marks are fakeflink's record, never the operator's: a start from older
// state shows as a drop.
func (c *Checker) sampleTimeline(d *flinkv1beta1.FlinkDeployment, cl *fakeflink.Cluster) {
	t, now, name := c.w.Trace, c.w.Now(), d.Name
	t.State(now, name, LaneLifecycle, string(d.Status.LifecycleState))
	t.State(now, name, LaneJobManager, string(d.Status.JobManagerDeploymentStatus))
	if cl == nil || d.Spec.Job == nil { // a session cluster's jobs are its session jobs'
		t.State(now, name, LaneJob, "")
		return
	}
	if c.timeline.starts == nil {
		c.timeline = timelineSeen{starts: map[string]int{}}
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
	j := jobs[len(jobs)-1]
	t.State(now, name, LaneJob, string(j.Status))
	if j.Status != fakeflink.StatusRunning { // Offset of a running job would advance its workload model
		t.Offset(now, name, j.Offset(now))
	}
}

// markSnapshot draws a snapshot a job of application deployment d completed (noRegression
// calls it once per snapshot, as it first records it).
func (c *Checker) markSnapshot(d *flinkv1beta1.FlinkDeployment, job string, s fakeflink.Snapshot) {
	if d.Spec.Job == nil { // a session cluster's jobs are its session jobs'
		return
	}
	kind := MarkCheckpoint
	if s.Kind == fakeflink.KindSavepoint {
		kind = MarkSavepoint
	}
	c.w.Trace.Mark(s.Time, d.Name, kind, s.Offset, fmt.Sprintf("%s %d of job %s at %s (offset %d)", kind, s.ID, job, s.Path, s.Offset))
}

// markFailover draws one of Flink's own restarts of a job of application deployment d: it
// goes back to older state too (noRegression calls it once per failover).
func (c *Checker) markFailover(d *flinkv1beta1.FlinkDeployment, job string, f fakeflink.Failover) {
	if d.Spec.Job == nil {
		return
	}
	c.w.Trace.Mark(f.At, d.Name, MarkRestore, f.Offset, fmt.Sprintf("Flink restarted job %s from offset %d", job, f.Offset))
}
