package harness

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/flinkop/flinkop/fakeflink"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
)

// The bounds on snapshot triggers, judged on fakeflink's truth (the savepoints its jobs took,
// the operations it has in flight) and the user's spec history, never on the operator's
// status:
//
//	N5 one savepoint per nonce: a FlinkDeployment's or a session job's jobs take no more
//	   savepoints that left them running than the user changed job.savepointTriggerNonce,
//	   while periodic savepoints are off (in the operator's options and every spec it had);
//	   savepoints of FlinkStateSnapshots do not count, nor do blue/green children (their
//	   switches take savepoints);
//	N6 one in flight per job: no job has two savepoints pending at once, besides those of
//	   FlinkStateSnapshots; blue/green children are not held to it.

// plainSavepoints are, per resource (name and uid), the paths of the savepoints its jobs took
// that left them running.
type plainSavepoints struct {
	uid   string
	paths map[string]bool
	// gens is how many generations of the spec history changes and periodic were counted
	// over (they are counted again when it grows).
	gens     int
	changes  int
	periodic bool
}

// oneSavepointPerNonce checks N5 for d, whose current cluster is cl.
func (c *Checker) oneSavepointPerNonce(d *flinkv1beta1.FlinkDeployment, cl *fakeflink.Cluster) []string {
	if ownedByBlueGreen(d) {
		if c.blueGreenChildren == nil {
			c.blueGreenChildren = map[string]bool{}
		}
		c.blueGreenChildren[d.Name] = true
		return nil
	}
	if d.Spec.Job == nil || c.w.Options.PeriodicSavepoint.On() {
		return nil
	}
	if c.plain == nil {
		c.plain = map[string]*plainSavepoints{}
	}
	p := c.plain[d.Name]
	if p == nil || p.uid != string(d.UID) {
		p = &plainSavepoints{uid: string(d.UID), paths: map[string]bool{}}
		c.plain[d.Name] = p
	}
	c.plainSavepointsOf(cl.Jobs(), p.paths)
	if len(p.paths) == 0 {
		return nil
	}
	if h := c.specs[d.Name]; h != nil && len(h.byGen) != p.gens {
		p.gens = len(h.byGen)
		p.changes, p.periodic = nonceChanges(h.byGen, func(s *flinkv1beta1.FlinkDeploymentSpec) (*flinkv1beta1.JobSpec, flinkv1beta1.FlinkConfiguration) {
			return s.Job, s.FlinkConfiguration
		})
	}
	if p.periodic || len(p.paths) <= p.changes {
		return nil
	}
	return []string{fmt.Sprintf("N5: the jobs of %s took %d savepoints they ran on after (%s); changes of its savepointTriggerNonce: %d",
		d.Name, len(p.paths), strings.Join(slices.Sorted(maps.Keys(p.paths)), ", "), p.changes)}
}

// nonceChanges counts the changes of savepointTriggerNonce to a set value across a resource's
// spec history byGen (a generation the checker never saw counts as one), and reports whether
// any spec it had asked for periodic savepoints; of gives a spec's job and configuration.
func nonceChanges[S any](byGen map[int64]*S, of func(*S) (*flinkv1beta1.JobSpec, flinkv1beta1.FlinkConfiguration)) (changes int, periodic bool) {
	gens := slices.Sorted(maps.Keys(byGen))
	prev := int64(0)
	var had *int64
	for _, g := range gens {
		job, conf := of(byGen[g])
		if v, ok := conf.Get(config.KeyPeriodicSavepoint); ok {
			if every, err := config.ParsePeriodic(v); err != nil || every.On() {
				periodic = true
			}
		}
		var n *int64
		if job != nil {
			n = job.SavepointTriggerNonce
		}
		if prev > 0 {
			changes += int(g - prev - 1) // generations never seen
			if n != nil && (had == nil || *had != *n) {
				changes++
			}
		}
		prev, had = g, n
	}
	return changes, periodic
}

// oneSavepointInFlight checks N6 on every cluster of the world.
func (c *Checker) oneSavepointInFlight() []string {
	type pending struct{ cluster, job string }
	many := map[pending][]string{}
	c.w.Sim.EachCluster(func(key string, cl *fakeflink.Cluster) {
		for _, j := range cl.Jobs() {
			var ids []string
			for _, f := range cl.InFlight(j.ID) {
				if f.Savepoint && c.snapshotTriggers[f.TriggerID] == "" {
					ids = append(ids, f.TriggerID)
				}
			}
			if len(ids) > 1 {
				_, name, _ := strings.Cut(key, "/")
				many[pending{name, j.ID}] = ids
			}
		}
	})
	var out []string
	for k, ids := range many {
		if d, err := c.w.Get(k.cluster); c.blueGreenChildren[k.cluster] || err == nil && ownedByBlueGreen(d) {
			continue // a child being deleted may still run its cluster
		}
		out = append(out, fmt.Sprintf("N6: job %s on %s has %d savepoints in flight at once (triggers %s)", k.job, k.cluster, len(ids), strings.Join(ids, ", ")))
	}
	slices.Sort(out)
	return out
}

// ownedByBlueGreen reports whether d is a child of a FlinkBlueGreenDeployment.
func ownedByBlueGreen(d *flinkv1beta1.FlinkDeployment) bool {
	for _, o := range d.OwnerReferences {
		if o.Kind == "FlinkBlueGreenDeployment" {
			return true
		}
	}
	return false
}

// plainSavepointsOf are the paths of the savepoints jobs took that left them running, besides
// those of FlinkStateSnapshots.
func (c *Checker) plainSavepointsOf(jobs []*fakeflink.Job, into map[string]bool) {
	for _, j := range jobs {
		for _, s := range j.Checkpoints() {
			if s.Kind == fakeflink.KindSavepoint && !s.StoppedJob && c.snapshotTriggers[s.TriggerID] == "" {
				into[s.Path] = true
			}
		}
	}
}

// sessionSavepointsPerNonce checks N5 for the session jobs of one session cluster: fj are the
// cluster's jobs, each a session job's by its jar's prefix.
func (c *Checker) sessionSavepointsPerNonce(cluster string, st *sessionState, fj []*fakeflink.Job) []string {
	if c.w.Options.PeriodicSavepoint.On() {
		return nil
	}
	byOwner := map[string][]*fakeflink.Job{}
	for _, j := range fj {
		if p := ownerPrefix(j.Program.Name, st); p != "" {
			byOwner[p] = append(byOwner[p], j)
		}
	}
	var out []string
	for _, p := range slices.Sorted(maps.Keys(byOwner)) {
		h := st.specs[p]
		if h == nil {
			continue
		}
		paths := map[string]bool{}
		c.plainSavepointsOf(byOwner[p], paths)
		if len(paths) == 0 {
			continue
		}
		changes, periodic := nonceChanges(h.byGen, func(s *flinkv1beta1.FlinkSessionJobSpec) (*flinkv1beta1.JobSpec, flinkv1beta1.FlinkConfiguration) {
			return s.Job, s.FlinkConfiguration
		})
		if !periodic && len(paths) > changes {
			out = append(out, fmt.Sprintf("N5: the jobs of session job %s on %s took %d savepoints they ran on after (%s); changes of its savepointTriggerNonce: %d",
				st.owners[p], cluster, len(paths), strings.Join(slices.Sorted(maps.Keys(paths)), ", "), changes))
		}
	}
	return out
}
