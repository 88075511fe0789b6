package decide

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
)

// ReasonUnknownOption is the reason of the Warning Event that names a kubernetes.operator.*
// or job.autoscaler.* key of a resource's flinkConfiguration that no operator reads.
const ReasonUnknownOption = "UnknownOption"

// step is one reconcile's working state.
type step struct {
	in     Input
	d      *flinkv1beta1.FlinkDeployment
	st     *flinkv1beta1.FlinkDeploymentStatus
	res    Result
	last   *ReconciledSpec
	conf   map[string]string // flattened desired configuration ("" when invalid)
	report Report            // the error this reconcile reports (status.error)
	// rollingBack is set while a rollback drives last (then the last stable spec) onto the
	// cluster; save writes it back to lastStableSpec.
	rollingBack bool
}

// immediately is the requeue used after a step that only wrote status (the write-ahead log),
// so the next step follows at once.
const immediately = time.Second

// Decide is the FlinkDeployment state machine: from the resource, its status and what was
// observed it picks one action, the new status, the events to record and when to look again.
// It is pure: no I/O, time comes from in.Now.
func Decide(in Input) Result {
	s := &step{in: in, d: in.Resource, st: in.Resource.Status.DeepCopy()}
	s.res.Action = None // the one write outside act
	switch {
	case s.d.DeletionTimestamp != nil:
		s.delete()
	default:
		s.reconcile()
		s.unreachable()
		s.ingressPolicy()
	}
	s.finish()
	s.res.Status = *s.st
	return s.res
}

func (s *step) reconcile() {
	last, err := s.stored(s.st.ReconciliationStatus.LastReconciledSpec)
	if err != nil {
		s.fail("StatusCorrupt", fmt.Sprintf("status.reconciliationStatus.lastReconciledSpec cannot be read (%v); fix or clear it", err))
		return
	}
	s.last = last
	valid := s.validate()
	s.observeStatus()
	if !valid && last == nil {
		return
	}
	if valid {
		switch {
		case last == nil:
			s.beginFirstDeployment()
			return
		case s.beginUpgradeIfChanged():
			return
		}
	}
	switch s.st.ReconciliationStatus.State {
	case flinkv1beta1.ReconciliationUpgrading:
		s.upgrade()
		return
	case flinkv1beta1.ReconciliationRollingBack:
		s.rollBack()
		return
	}
	if s.beginRollbackIfUnstable() || s.recoverJobManager() || s.restartFailedJob() || (valid && s.restartUnhealthyJob()) || s.shutdownEndedJobManager() {
		return
	}
	s.steady(valid)
}

// InvalidSpec is the status.error of a spec Validate refused: a resource that had a valid
// spec keeps running it; one that never had one has nothing deployed.
func InvalidSpec(deployed bool, why string) string {
	if deployed {
		return "invalid spec, the last valid spec keeps running: " + why
	}
	return "invalid spec, nothing is deployed until it is fixed: " + why
}

// validate reports validation errors; the last valid spec keeps running.
func (s *step) validate() bool {
	errs := s.d.Validate()
	if len(errs) > 0 {
		s.fail("ValidationError", InvalidSpec(s.st.ReconciliationStatus.LastReconciledSpec != "", errs.ToAggregate().Error()))
		s.observed()
		return false
	}
	s.conf, _ = s.d.Spec.Conf()
	if why := s.in.Options.Ingress.RESTServiceRefusal(s.conf); why != "" {
		s.fail("ValidationError", InvalidSpec(s.st.ReconciliationStatus.LastReconciledSpec != "", why))
		s.observed()
		return false
	}
	if s.st.ObservedGeneration < s.d.Generation {
		own, _ := s.d.Spec.FlinkConfiguration.Flatten() // the file's own keys are checked when it is read
		s.res.Events = append(s.res.Events, UnknownOptionEvents(own)...)
		if keys := flinkv1beta1.NotAppliedOptions(own, s.d.Spec.Native()); len(keys) > 0 {
			s.event(Warning, "OptionNotApplied", "flinkConfiguration sets options this operator does not apply: "+strings.Join(keys, ", "))
		}
	}
	return true
}

// UnknownOptionEvents are the Warning Events, one each, that name the operator options of a
// flattened flinkConfiguration no operator reads (a typo, most likely: see config.Check);
// FlinkDeployments and session jobs record them when a generation is first looked at, and
// the spec runs all the same.
func UnknownOptionEvents(conf map[string]string) []Event {
	var out []Event
	for _, w := range config.CheckResource(conf) {
		out = append(out, Event{Type: Warning, Reason: ReasonUnknownOption, Message: "flinkConfiguration: " + w})
	}
	return out
}

// observed marks the current generation as looked at.
func (s *step) observed() {
	s.st.ObservedGeneration = max(s.st.ObservedGeneration, s.d.Generation)
}

func (s *step) beginFirstDeployment() {
	restore := restoreModeFor(s.d.Spec, DiffUpgrade)
	s.record(newReconciledSpec(s.d.Spec, s.d.Generation, true, restore))
	if j := s.d.Spec.Job; j != nil {
		s.st.JobStatus.UpgradeSavepointPath = j.InitialSavepointPath
	}
	s.event(Normal, "Submit", "Starting the first deployment of generation "+strconv.FormatInt(s.d.Generation, 10))
	s.res.RequeueAfter = immediately
}

// beginUpgradeIfChanged records a changed spec in the write-ahead log and starts the upgrade.
// Changes that run nothing (nonces, upgrade mode, operator options) wait until no upgrade is
// in flight and are handled by steady.
func (s *step) beginUpgradeIfChanged() bool {
	diff, fields := Diff(s.last.Spec, s.d.Spec)
	if diff == DiffIgnore {
		return false
	}
	if s.scaleInPlace(diff, fields) {
		return true
	}
	restore := restoreModeFor(s.d.Spec, diff)
	next := newReconciledSpec(s.d.Spec, s.d.Generation, s.last.Metadata.FirstDeployment, restore)
	next.Metadata.Redeploy = diff == DiffSavepointRedeploy
	// Judged against the deployed spec, before the new one is recorded.
	stale := s.clusterHasLiveJob() || s.restorePathConsumed()
	changed := SpecChangedMessage(diff, s.last.Spec, s.d.Spec, fields) // before record replaces s.last
	s.record(next)
	s.event(Normal, "SpecChanged", changed)
	if stale || next.Metadata.Redeploy {
		// The state to restore will be taken from the running job (or is the initial
		// savepoint for a redeploy); an older upgrade's path must not be reused.
		s.st.JobStatus.UpgradeSavepointPath = ""
		if next.Metadata.Redeploy && s.d.Spec.Job != nil {
			s.st.JobStatus.UpgradeSavepointPath = s.d.Spec.Job.InitialSavepointPath
		}
	}
	s.res.RequeueAfter = immediately
	return true
}

// restorePathConsumed reports whether the deployed job already ran from
// status.jobStatus.upgradeSavepointPath: the deployed JobManager reports a job, running or
// ended. The path is then older than that job's state and must not be restored again. (A
// JobManager that never started reports none: its path is still the newest state.)
func (s *step) restorePathConsumed() bool {
	o := s.in.Observed
	state := s.st.ReconciliationStatus.State
	if state != flinkv1beta1.ReconciliationDeployed && state != flinkv1beta1.ReconciliationRolledBack {
		return false
	}
	// Once deployed, the JobManager on the cluster is the one the path was given to (ignorable
	// changes move the reconciled generation without a redeploy, so generations do not tell).
	return o.JobManager != nil && !s.jobManagerNeverStarted() && o.Job != nil
}

// record writes the write-ahead log: the target spec and state UPGRADING, before any cluster
// action.
func (s *step) record(r *ReconciledSpec) {
	s.last = r
	rs := &s.st.ReconciliationStatus
	rs.LastReconciledSpec = r.Encode()
	rs.State = flinkv1beta1.ReconciliationUpgrading
	rs.ReconciliationTimestamp = s.in.Now.UnixMilli()
	s.observed()
}

// clusterHasLiveJob reports whether a job that is not globally terminal runs on the cluster
// (or may: a JobManager whose REST API does not answer). A JobManager that never started runs
// no job.
func (s *step) clusterHasLiveJob() bool {
	o := s.in.Observed
	return o.JobManager != nil && !s.jobManagerNeverStarted() && (o.Job == nil || !jobState(o.Job.State).globallyTerminal())
}

// jobManagerNeverStarted reports whether the deployed JobManager never ran: none of its pods
// ran a container, and it was never seen READY.
func (s *step) jobManagerNeverStarted() bool {
	return s.in.Observed.JobManagerNeverStarted && (s.last == nil || !s.last.Metadata.JobManagerStarted)
}

func restoreModeFor(spec flinkv1beta1.FlinkDeploymentSpec, diff DiffType) RestoreMode {
	if spec.Job == nil {
		return RestoreNone
	}
	if diff == DiffSavepointRedeploy {
		return RestoreSavepoint
	}
	switch spec.Job.EffectiveUpgradeMode() {
	case flinkv1beta1.UpgradeModeSavepoint:
		return RestoreSavepoint
	case flinkv1beta1.UpgradeModeLastState:
		return RestoreHA
	}
	return RestoreNone
}

// fail reports a decision's error (see Report).
func (s *step) fail(reason, msg string) { s.report.Fail(reason, msg) }

// failObserved reports an error seen in the cluster.
func (s *step) failObserved(reason, msg string) { s.report.FailObserved(reason, msg) }

// addObserved reports an error seen in the cluster next to an observed one already reported.
func (s *step) addObserved(reason, msg string) { s.report.AddObserved(reason, msg) }

func (s *step) event(t EventType, reason, msg string) {
	s.res.Events = append(s.res.Events, Event{Type: t, Reason: reason, Message: msg})
}

// requeue asks to look again after at most d.
func (s *step) requeue(d time.Duration) {
	if d <= 0 {
		d = immediately // a zero RequeueAfter would stop polling: "now" is at once
	}
	if s.res.RequeueAfter == 0 || d < s.res.RequeueAfter {
		s.res.RequeueAfter = d
	}
}

// TriggerID derives an idempotent Flink trigger id: a retried trigger after a crash reuses it
// and Flink does not start a second operation.
func TriggerID(uid, kind string, n int64) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s/%s/%d", uid, kind, n))
	return hex.EncodeToString(sum[:16])
}

// jobState wraps Flink's job state strings.
type jobState string

func (j jobState) globallyTerminal() bool { return flinkv1beta1.JobStatusState(j).GloballyTerminal() }

// act sets the reconcile's one action. A second one in the same reconcile is a bug of the
// state machine (one of the two would be lost): it panics, so every test that reaches it
// fails, and controller-runtime recovers it as that reconcile's error in the operator.
// TestActionIsSetOnlyThroughAct keeps every other write of the action out.
func (s *step) act(a Action) {
	OneAction("decide", s.res.Action.Kind, a.Kind)
	s.res.Action = a
}

// OneAction panics when a reconcile of a state machine (pkg) that already chose an action
// (current: neither "" nor ActNone) chooses another (next): each state machine sets its action
// through an act method that calls it.
func OneAction[K ~string](pkg string, current, next K) {
	if current != "" && string(current) != string(ActNone) {
		panic(fmt.Sprintf("%s: a second action %s in one reconcile, after %s", pkg, next, current))
	}
}
