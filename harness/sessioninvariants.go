package harness

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
	"github.com/flinkop/flinkop/operator/sessionjob"
)

// sessionState is what the checker remembers of the session jobs on one session cluster.
type sessionState struct {
	// owners maps a session job's jar prefix to its name (kept after deletion).
	owners map[string]string
	// specs are the users' specs of each session job (by jar prefix) per generation, as its
	// object carried them: S2 judges a start by them, never by the operator's status.
	specs map[string]*sessionSpecs
	// starts counts the job starts already checked.
	starts int
}

// sessionSpecs is one session job's spec history (its uid names its jobs' ids) and the
// generation its last job was submitted for (0: none yet).
type sessionSpecs struct {
	uid      string
	byGen    map[int64]*flinkv1beta1.FlinkSessionJobSpec
	startGen int64
}

// maxRuns bounds the restarts of one generation the checker looks for in job ids.
const maxRuns = 64

// generationOf is the generation a job of the session job was submitted for: the one whose job
// id (Flink's job ids name the generation and run they were submitted for) it has; 0 when none
// the checker saw.
func (h *sessionSpecs) generationOf(jobID string) int64 {
	for g := range h.byGen {
		for k := range maxRuns {
			run := ""
			if k > 0 {
				run = fmt.Sprintf("restart-%d", k)
			}
			if decide.JobIDFor(h.uid, g, run) == jobID {
				return g
			}
		}
	}
	return 0
}

// askedForFreshState reports whether the user's specs let the job of generation gen start
// without the previous job's state (freshBetween from the generation of the last start): a
// stateless job, a savepointRedeployNonce changed since (a redeploy from initialSavepointPath),
// or specs the checker never saw.
func (h *sessionSpecs) askedForFreshState(gen int64) bool {
	return freshBetween(h.byGen, h.startGen, gen, func(s *flinkv1beta1.FlinkSessionJobSpec) *flinkv1beta1.JobSpec { return s.Job })
}

// WatchSessionCluster makes Check also check the session job invariants on the named
// session cluster:
//
//	S1 a session job never has two live jobs on its cluster at once;
//	S2 a stateful session job's next job starts from its previous job's newest snapshot;
//	S3 a deleted session job leaves no live job and no jar of its own on its cluster.
func (c *Checker) WatchSessionCluster(name string) {
	if c.sessions == nil {
		c.sessions = map[string]*sessionState{}
	}
	c.sessions[name] = &sessionState{owners: map[string]string{}, specs: map[string]*sessionSpecs{}}
}

func (c *Checker) checkSessions() []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(c.sessions)) {
		out = append(out, c.checkSession(name, c.sessions[name])...)
	}
	return out
}

func (c *Checker) checkSession(cluster string, st *sessionState) []string {
	var jobs flinkv1beta1.FlinkSessionJobList
	if err := c.w.Client.List(context.Background(), &jobs); err != nil {
		return []string{"list session jobs: " + err.Error()}
	}
	present := map[string]bool{}
	for _, j := range jobs.Items {
		if j.Spec.DeploymentName != cluster {
			continue
		}
		prefix := sessionjob.JarPrefix(string(j.UID))
		st.owners[prefix] = j.Name
		present[prefix] = j.DeletionTimestamp == nil
		c.sessionLifecycles.note(j.Name, j.Status.LifecycleState)
		h := st.specs[prefix]
		if h == nil {
			h = &sessionSpecs{uid: string(j.UID), byGen: map[int64]*flinkv1beta1.FlinkSessionJobSpec{}}
			st.specs[prefix] = h
		}
		if h.byGen[j.Generation] == nil {
			h.byGen[j.Generation] = j.Spec.DeepCopy()
		}
	}
	names := map[string]bool{}
	for p := range present {
		names[st.owners[p]] = true
	}
	for _, name := range st.owners {
		if !names[name] {
			c.sessionLifecycles.note(name, "") // gone (a new one of the name is another)
		}
	}
	cl := c.w.Sim.Cluster(c.w.Namespace, act.JobManagerName(cluster))
	if cl == nil {
		return nil
	}
	var out []string
	var fj []*fakeflink.Job
	var jars []fakeflink.Jar
	var starts []fakeflink.JobStart
	c.w.Cluster(cluster, func(cl *fakeflink.Cluster) {
		fj, jars, starts = cl.Jobs(), cl.Jars(), cl.Starts()
	})
	live := map[string][]string{}
	for _, j := range fj {
		if p := ownerPrefix(j.Program.Name, st); p != "" && !j.Status.IsGloballyTerminal() {
			live[p] = append(live[p], j.ID)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(st.owners)) {
		name := st.owners[p]
		if len(live[p]) > 1 {
			out = append(out, fmt.Sprintf("session job %s has %d live jobs on %s: %v (S1)", name, len(live[p]), cluster, live[p]))
		}
		if _, ok := present[p]; !ok && cl.Up() {
			out = append(out, c.leftBehind(name, p, live[p], jars)...)
		}
	}
	out = append(out, c.checkSessionStarts(st, fj, starts)...)
	return append(out, c.sessionSavepointsPerNonce(cluster, st, fj)...)
}

// leftBehind reports what a deleted session job left on its running cluster (S3).
func (c *Checker) leftBehind(name, prefix string, live []string, jars []fakeflink.Jar) []string {
	var out []string
	if len(live) > 0 {
		out = append(out, fmt.Sprintf("session job %s is deleted but its jobs %v still run (S3)", name, live))
	}
	for _, j := range jars {
		if strings.HasPrefix(j.Name, prefix) {
			out = append(out, fmt.Sprintf("session job %s is deleted but its jar %s is still on the cluster (S3)", name, j.ID))
		}
	}
	return out
}

// checkSessionStarts checks S2 for the job starts not yet checked: unless the user's spec
// asked for a fresh start, a session job's next job starts at (or after) the newest snapshot
// its previous job completed.
func (c *Checker) checkSessionStarts(st *sessionState, fj []*fakeflink.Job, starts []fakeflink.JobStart) []string {
	byID := map[string]*fakeflink.Job{}
	for _, j := range fj {
		byID[j.ID] = j
	}
	var out []string
	for i := st.starts; i < len(starts); i++ {
		s := starts[i]
		job := byID[s.JobID]
		if job == nil {
			continue
		}
		prefix := ownerPrefix(job.Program.Name, st)
		h := st.specs[prefix]
		if h == nil {
			continue // not one of the session jobs' (S1 and S3 judge those)
		}
		gen := h.generationOf(s.JobID)
		first, fresh := h.startGen == 0, h.askedForFreshState(gen)
		if gen != 0 {
			h.startGen = gen
		}
		if first || fresh {
			continue
		}
		prev := previousJob(starts[:i], s.JobID, prefix, byID, st)
		if prev == nil {
			continue // the cluster lost it: the operator refuses to guess
		}
		newest := int64(0)
		for _, snap := range prev.Checkpoints() {
			newest = max(newest, snap.Offset)
		}
		if s.Offset < newest {
			out = append(out, fmt.Sprintf("session job %s: job %s started at offset %d from %q, but job %s before it completed a snapshot at offset %d (S2)",
				st.owners[prefix], s.JobID, s.Offset, s.RestorePath, prev.ID, newest))
		}
	}
	st.starts = len(starts)
	return out
}

// previousJob is the job of the same session job started last before job id.
func previousJob(before []fakeflink.JobStart, id, prefix string, byID map[string]*fakeflink.Job, st *sessionState) *fakeflink.Job {
	for k := len(before) - 1; k >= 0; k-- {
		p := byID[before[k].JobID]
		if p != nil && p.ID != id && ownerPrefix(p.Program.Name, st) == prefix {
			return p
		}
	}
	return nil
}

// ownerPrefix is the jar prefix of the session job a job's jar belongs to ("" for none).
func ownerPrefix(jarName string, st *sessionState) string {
	for p := range st.owners {
		if strings.HasPrefix(jarName, p) {
			return p
		}
	}
	return ""
}

// SessionJobConverged reports whether a session job reached its desired state: deleted,
// running its current generation stably, suspended, or refusing with a reported error.
func (c *Checker) SessionJobConverged(name string) (bool, string) {
	j, err := c.w.GetSessionJob(name)
	if apierrors.IsNotFound(err) {
		return true, "deleted"
	}
	if err != nil {
		return false, err.Error()
	}
	st := j.Status
	if st.Error != "" {
		return c.hasWarning(name, flinkv1beta1.ErrorMessage(st.Error)), "refused: " + flinkv1beta1.ErrorMessage(st.Error)
	}
	if st.ObservedGeneration != j.Generation || st.ReconciliationStatus.State != flinkv1beta1.ReconciliationDeployed {
		return false, fmt.Sprintf("generation %d observed %d, reconciliation %s", j.Generation, st.ObservedGeneration, st.ReconciliationStatus.State)
	}
	want, lc := flinkv1beta1.JobStatusRunning, flinkv1beta1.LifecycleStable
	if j.Spec.Job != nil && j.Spec.Job.EffectiveState() == flinkv1beta1.JobStateSuspended {
		want, lc = flinkv1beta1.JobStatusSuspended, flinkv1beta1.LifecycleSuspended
	}
	if st.JobStatus.State != want || st.LifecycleState != lc {
		return false, fmt.Sprintf("job %s, lifecycle %s; want %s, %s", st.JobStatus.State, st.LifecycleState, want, lc)
	}
	return true, ""
}

// SessionJobResourceVersion returns a session job's resourceVersion ("" when gone).
func (c *Checker) SessionJobResourceVersion(name string) string {
	j, err := c.w.GetSessionJob(name)
	if err != nil {
		return ""
	}
	return j.ResourceVersion
}
