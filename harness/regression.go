package harness

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// noRegression: a stateful job never starts from an offset older than the newest completed
// snapshot of the run before it (invariant 1), unless the user asked for it.
func (c *Checker) noRegression(d *flinkv1beta1.FlinkDeployment, cl *fakeflink.Cluster) []string {
	name := d.Name
	for _, j := range cl.Jobs() {
		for _, f := range j.Failovers() {
			if c.addFailover(j.ID, f) {
				c.markFailover(d, j.ID, f)
			}
		}
		for _, s := range j.Checkpoints() {
			if c.snapshots[j.ID] == nil {
				c.snapshots[j.ID] = map[string]fakeflink.Snapshot{}
			}
			key := fmt.Sprintf("%s#%d", s.Path, s.ID)
			if _, had := c.snapshots[j.ID][key]; !had {
				c.markSnapshot(d, j.ID, s)
			}
			c.snapshots[j.ID][key] = s
		}
	}
	key := fmt.Sprintf("%s/%d", name, c.w.Sim.Incarnation(c.w.Namespace, act.JobManagerName(name)))
	starts := cl.Starts()
	var out []string
	for _, s := range starts[c.starts[key]:] {
		out = append(out, c.checkStart(d, s)...)
		c.lastJob[name] = s.JobID
	}
	c.starts[key] = len(starts)
	return out
}

func (c *Checker) checkStart(d *flinkv1beta1.FlinkDeployment, s fakeflink.JobStart) []string {
	name := d.Name
	prev := c.lastJob[name]
	gen, before := c.jmGeneration(name), c.deployedGen[name]
	crashed, haLost := c.crashes[name], c.haLost[name]
	operatorDeploy := gen != before
	c.deployedGen[name], c.crashes[name], c.haLost[name] = gen, false, false
	if prev == "" {
		return nil // the first start: nothing to regress from
	}
	spec := c.specOf(name, generationOf(gen))
	if spec == nil || spec.Job == nil {
		return nil
	}
	var floor int64
	switch {
	case crashed && s.JobID == prev && haEnabled(spec) && !haLost:
		// HA recovery of the same job after its JobManager went (Flink's own restart, or a
		// JobManager Deployment the operator recreated): it restores the latest checkpoint.
		floor = c.newest(name, prev, s.Time, true)
	case !operatorDeploy && crashed:
		// Flink's own recovery after a JobManager crash: only HA recovery must keep state.
		if !haEnabled(spec) || s.JobID != prev || haLost {
			// Flink restarted the job from what it had (its configured savepoint, say): the
			// snapshots before are a lost lineage, and later starts are judged from here.
			c.lineage[name] = s.Time
			return nil
		}
		floor = c.newest(name, prev, s.Time, true)
	case !operatorDeploy:
		return nil
	case c.askedForFreshState(name, gen, before):
		return nil // the user asked for empty or initial state
	default:
		// An operator deploy restores the newest snapshot it knew of, savepoints included: HA
		// recovery alone would go back behind a savepoint newer than the latest checkpoint.
		floor = c.newest(name, prev, s.Time, false)
	}
	c.noteRecovery(prev, s)
	if s.RestorePath == "" && s.Offset == 0 && floor > 0 {
		return []string{fmt.Sprintf("%s: job %s started from empty state although job %s had completed snapshots up to offset %d, and nobody asked for it (invariant 6: no silent fallback to empty state)",
			name, s.JobID, prev, floor)}
	}
	if s.Offset < floor {
		return []string{fmt.Sprintf("%s: job %s started at offset %d from %q, older than the newest snapshot (%d) of job %s before it (invariant 1)",
			name, s.JobID, s.Offset, s.RestorePath, floor, prev)}
	}
	return nil
}

// newest is the highest offset of a snapshot of job completed before t, since the resource's
// lineage began and on the job's own lineage (see offLineage); savepoints count only when the
// operator saw them (see noteSavepoints), and not at all when checkpointsOnly (HA recovery
// restores checkpoints, not savepoints).
func (c *Checker) newest(name, job string, t time.Time, checkpointsOnly bool) int64 {
	var n int64
	for _, s := range c.snapshots[job] {
		switch {
		case s.Time.After(t) || s.Time.Before(c.lineage[name]):
		case s.Kind != fakeflink.KindCheckpoint && (checkpointsOnly || !c.knownSavepoints[name][s.Path]):
		case offLineage(s, c.failovers[job], t):
		default:
			n = max(n, s.Offset)
		}
	}
	return n
}

// noteRecovery records a start of the job prev from one of its own checkpoints (HA recovery)
// as a failover: it leaves the snapshots taken after that checkpoint (savepoints, which Flink
// never recovers from) off the lineage.
func (c *Checker) noteRecovery(prev string, s fakeflink.JobStart) {
	if s.JobID != prev || s.RestorePath == "" {
		return
	}
	for _, snap := range c.snapshots[prev] {
		if snap.Path == s.RestorePath {
			c.addFailover(prev, fakeflink.Failover{At: s.Time, RestoredFrom: snap.Time, Offset: s.Offset})
		}
	}
}

// addFailover records f of job once: a job id lives on across JobManager incarnations, each
// with its own fakeflink Job and failover list.
func (c *Checker) addFailover(job string, f fakeflink.Failover) bool {
	for _, had := range c.failovers[job] {
		if had.At.Equal(f.At) {
			return false
		}
	}
	c.failovers[job] = append(c.failovers[job], f)
	return true
}

// offLineage reports whether a failover before t took the job back behind snapshot s: Flink
// restarted it from an older checkpoint (intermediate savepoints are not used for recovery),
// so the state it went on with, and later stopped with, does not descend from s.
func offLineage(s fakeflink.Snapshot, failovers []fakeflink.Failover, t time.Time) bool {
	for _, f := range failovers {
		if !f.At.After(t) && s.Time.After(f.RestoredFrom) && !s.Time.After(f.At) {
			return true
		}
	}
	return false
}

// noteSavepoints records the savepoints d's status shows: completed savepoints the operator
// observed. One whose completion it never saw (its JobManager became unreachable as it
// completed) cannot be asked of it.
func (c *Checker) noteSavepoints(d *flinkv1beta1.FlinkDeployment) {
	if c.knownSavepoints[d.Name] == nil {
		c.knownSavepoints[d.Name] = map[string]bool{}
	}
	known := c.knownSavepoints[d.Name]
	if p := d.Status.JobStatus.UpgradeSavepointPath; p != "" {
		known[p] = true
	}
	if sp := d.Status.JobStatus.SavepointInfo; sp != nil {
		if sp.LastSavepoint != nil {
			known[sp.LastSavepoint.Location] = true
		}
		for _, h := range sp.SavepointHistory {
			known[h.Location] = true
		}
	}
}

// askedForFreshState reports whether the user asked for a start from empty or initial state
// by the deploy keyed key, judged from the specs alone, never from the operator's record: a
// stateless job, or a savepointRedeployNonce changed since the deploy before (keyed before),
// which starts from initialSavepointPath or, without one, from empty state. A spec the checker
// never saw cannot be judged, and is taken as asked.
func (c *Checker) askedForFreshState(name, key, before string) bool {
	h := c.specs[name]
	if h == nil {
		return true
	}
	return freshBetween(h.byGen, judgedBy(before), judgedBy(key), func(s *flinkv1beta1.FlinkDeploymentSpec) *flinkv1beta1.JobSpec { return s.Job })
}

// freshBetween reports whether the specs from generation from to generation to let the job of
// to start afresh: to's spec is stateless, or some generation after from up to to changed
// savepointRedeployNonce from from's (a change and its undoing in between still redeployed
// once, if the operator saw it), or one of them was never seen.
func freshBetween[S any](byGen map[int64]*S, from, to int64, job func(*S) *flinkv1beta1.JobSpec) bool {
	cur, old := byGen[to], byGen[from]
	if cur == nil || old == nil || job(cur) == nil || job(old) == nil ||
		job(cur).EffectiveUpgradeMode() == flinkv1beta1.UpgradeModeStateless {
		return true
	}
	lo, hi := min(from, to), max(from, to)
	for g := lo + 1; g <= hi; g++ {
		s := byGen[g]
		if s == nil || job(s) == nil || !ptr.Equal(job(old).SavepointRedeployNonce, job(s).SavepointRedeployNonce) {
			return true
		}
	}
	return false
}

// generationOf is the generation of a deploy key ("<generation>" or "<generation>/<run>").
func generationOf(key string) int64 {
	g, _, _ := strings.Cut(key, "/")
	n, _ := strconv.ParseInt(g, 10, 64)
	return n
}

// judgedBy is the generation whose spec says how the deploy keyed key restores: a rollback
// (run "rollback-<failed generation>") restores as the failed generation's spec asks (the
// operator starts a stable spec anew when the failed one is stateless), any other deploy as
// its own generation's.
func judgedBy(key string) int64 {
	_, run, _ := strings.Cut(key, "/")
	if failed, ok := strings.CutPrefix(run, "rollback-"); ok {
		if n, err := strconv.ParseInt(failed, 10, 64); err == nil {
			return n
		}
	}
	return generationOf(key)
}

func haEnabled(spec *flinkv1beta1.FlinkDeploymentSpec) bool {
	conf, _ := spec.Conf()
	return flinkv1beta1.HAEnabled(conf)
}

// deployKey names one deploy of a resource: its generation and job run.
func deployKey(generation, run string) string {
	if run == "" {
		return generation
	}
	return generation + "/" + run
}

func (c *Checker) jmGeneration(name string) string {
	var dep appsv1.Deployment
	if err := c.w.Client.Get(context.Background(), client.ObjectKey{Namespace: c.w.Namespace, Name: act.JobManagerName(name)}, &dep); err != nil {
		return ""
	}
	return deployKey(dep.Annotations[act.AnnotationGeneration], dep.Annotations[act.AnnotationRun])
}
