package decide

import (
	"fmt"
	"hash/fnv"
	"sort"
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
)

// periodicSavepoint triggers a savepoint every kubernetes.operator.periodic.savepoint.interval
// while the job runs (Book.PeriodicSavepoint).
func (s *step) periodicSavepoint() bool {
	o := s.in.Observed
	return s.periodic(s.book().PeriodicSavepoint(s.in.Options.PeriodicSavepoint, o.Job, o.RESTReachable, s.in.NoSnapshotSlot, string(s.d.UID)))
}

// periodicCheckpoint triggers a full checkpoint every
// kubernetes.operator.periodic.checkpoint.interval while the job runs (Book.PeriodicCheckpoint).
func (s *step) periodicCheckpoint() bool {
	o := s.in.Observed
	return s.periodic(s.book().PeriodicCheckpoint(s.in.Options.PeriodicCheckpoint, o.Job, o.RESTReachable, s.in.NoSnapshotSlot, string(s.d.UID), s.d.Spec.FlinkVersion))
}

// periodic takes a periodic trigger a (none: Kind "") as the reconcile's action, and asks to
// look again after wait; it reports whether there was one.
func (s *step) periodic(a Action, wait time.Duration) bool {
	if wait > 0 {
		s.requeue(wait)
	}
	if a.Kind == "" {
		return false
	}
	s.act(a)
	return true
}

// cleanHistory trims the savepoint history (Book.CleanHistory).
func (s *step) cleanHistory() {
	a, more := s.book().CleanHistory(s.in.Options, s.in.Observed.RESTReachable)
	if a.Kind != "" {
		s.act(a)
	}
	if more {
		s.requeue(immediately)
	}
}

// SlotRetry is how long a due periodic snapshot that found every fleet-wide snapshot slot
// taken waits before it asks again: 10 s, plus up to 10 s spread by the resource's uid, so
// that the snapshots of a fleet due at the same instant (one cron expression) do not all ask
// again at once.
func SlotRetry(uid string) time.Duration {
	h := fnv.New32a()
	_, _ = h.Write([]byte(uid))
	return 10*time.Second + time.Duration(h.Sum32()%10000)*time.Millisecond
}

// PeriodicSavepoint triggers a savepoint of job when every says it is due (an interval, or a
// cron schedule; off: never) while it runs and its REST API answers (reachable), and a
// fleet-wide snapshot slot is free (not noSlot: else it asks again after SlotRetry). It is due
// counting from the last periodic trigger (or the job's start), and the trigger id derives
// from that time and uid, so a retry after a crash asks Flink for the same savepoint instead
// of a second one. It returns the trigger (Kind "" when none is due) and how long until the
// next one is due (0: none).
func (b Book) PeriodicSavepoint(every config.Periodic, job *JobObservation, reachable, noSlot bool, uid string) (Action, time.Duration) {
	var last int64
	if sp := b.JS.SavepointInfo; sp != nil {
		last = sp.LastPeriodicSavepointTimestamp
	}
	from, wait, due := periodicDue(every, job, reachable, noSlot, uid, last, b.Now)
	if !due {
		return Action{}, wait
	}
	if job.SavepointInProgress { // Flink takes one already: never a second at once
		return Action{}, SlotRetry(uid)
	}
	id := TriggerID(uid, "periodic", from)
	b.SetTrigger(id, flinkv1beta1.SnapshotTriggerPeriodic)
	b.Savepoints().LastPeriodicSavepointTimestamp = b.Now.UnixMilli()
	b.event(Normal, "SavepointTriggered", fmt.Sprintf("Triggering a periodic savepoint (every %s)", every))
	return Action{Kind: ActTriggerSavepoint, JobID: job.ID, TriggerID: id, FormatType: b.Format}, 0
}

// periodicDue reports whether a periodic snapshot of job is due at now (every, counted from
// last or the job's start, whichever is later: from), or how long to wait (0: never).
func periodicDue(every config.Periodic, job *JobObservation, reachable, noSlot bool, uid string, last int64, now time.Time) (from int64, wait time.Duration, due bool) {
	if !every.On() || job == nil || job.State != "RUNNING" || !reachable {
		return 0, 0, false
	}
	from = max(job.StartTime, last)
	next := every.Next(time.UnixMilli(from))
	switch {
	case next.IsZero():
		return from, 0, false // a schedule that never fires
	case now.Before(next):
		return from, next.Sub(now), false
	case noSlot:
		return from, SlotRetry(uid), false
	}
	return from, 0, true
}

// CleanHistory trims the savepoint history to kubernetes.operator.savepoint.history.max.count
// and max.age (opts). A trimmed savepoint is disposed through Flink (one per reconcile, only
// while its REST API answers: reachable) and its entry dropped in the same status write, so a
// disposal that fails keeps the entry for the next try. The newest savepoint is never trimmed,
// and a trimmed one's record goes with it. Upgrade savepoints leave the history but are not
// disposed (a rolled-back or restarted job may still restore one, as with the Apache
// operator), nor is the savepoint the job would restore from; with
// kubernetes.operator.savepoint.cleanup.enabled false nothing is disposed. It returns the
// disposal (Kind "" for none) and whether trimmed entries wait for a later reconcile.
func (b Book) CleanHistory(opts config.Options, reachable bool) (Action, bool) {
	sp := b.JS.SavepointInfo
	if sp == nil || len(sp.SavepointHistory) == 0 {
		return Action{}, false
	}
	keep := trimHistory(sp.SavepointHistory, opts.SavepointHistoryMaxCount, opts.SavepointHistoryMaxAge, b.Now)
	if len(keep) == len(sp.SavepointHistory) {
		return Action{}, false
	}
	kept := map[int64]bool{}
	for _, k := range keep {
		kept[k.TimeStamp] = true
	}
	var out []flinkv1beta1.Savepoint
	var disposal Action
	for _, old := range sp.SavepointHistory {
		switch {
		case kept[old.TimeStamp]:
			out = append(out, old)
		case !b.disposable(opts, old):
			b.forget(old) // dropped from the history, the files stay
		case disposal.Kind == "" && reachable:
			disposal = Action{Kind: ActDisposeSavepoint, Path: old.Location}
			b.event(Normal, "SavepointDisposed", "Disposing savepoint "+old.Location+", trimmed from the history")
			b.forget(old)
		default:
			out = append(out, old) // disposed by a later reconcile
		}
	}
	sp.SavepointHistory = out
	return disposal, len(out) > len(keep)
}

// disposable reports whether a trimmed history entry's files may be deleted.
func (b Book) disposable(opts config.Options, old flinkv1beta1.Savepoint) bool {
	return opts.SavepointCleanup && old.TriggerType != flinkv1beta1.SnapshotTriggerUpgrade && old.Location != "" &&
		!WouldRestoreFrom(b.JS, old.Location)
}

// WouldRestoreFrom reports whether a job with status js could restore from the savepoint at
// path: it is the job's upgrade savepoint or its last savepoint, the two a restart without
// HA metadata falls back to. Such a savepoint is never disposed of.
func WouldRestoreFrom(js *flinkv1beta1.JobStatus, path string) bool {
	if path == "" {
		return false
	}
	sp := js.SavepointInfo
	return path == js.UpgradeSavepointPath || (sp != nil && sp.LastSavepoint != nil && path == sp.LastSavepoint.Location)
}

// trimHistory keeps at most maxCount savepoints younger than maxAge, oldest first; the newest
// is always kept.
func trimHistory(h []flinkv1beta1.Savepoint, maxCount int, maxAge time.Duration, now time.Time) []flinkv1beta1.Savepoint {
	h = append([]flinkv1beta1.Savepoint(nil), h...)
	sort.SliceStable(h, func(i, j int) bool { return h[i].TimeStamp < h[j].TimeStamp })
	cutoff := now.Add(-maxAge).UnixMilli()
	var out []flinkv1beta1.Savepoint
	for i, sp := range h {
		if i == len(h)-1 || (maxAge <= 0 || sp.TimeStamp >= cutoff) {
			out = append(out, sp)
		}
	}
	if maxCount > 0 && len(out) > maxCount {
		out = out[len(out)-maxCount:]
	}
	return out
}

// PeriodicCheckpoint triggers a full checkpoint of job as PeriodicSavepoint does a savepoint,
// on Flink 1.17 or later (version; the REST trigger came with it).
func (b Book) PeriodicCheckpoint(every config.Periodic, job *JobObservation, reachable, noSlot bool, uid string, version flinkv1beta1.FlinkVersion) (Action, time.Duration) {
	if !version.AtLeast(1, 17) {
		return Action{}, 0
	}
	var last int64
	if cp := b.JS.CheckpointInfo; cp != nil {
		last = cp.LastPeriodicCheckpointTimestamp
	}
	from, wait, due := periodicDue(every, job, reachable, noSlot, uid, last, b.Now)
	if !due {
		return Action{}, wait
	}
	id := TriggerID(uid, "periodic-checkpoint", from)
	b.SetCheckpointTrigger(id, flinkv1beta1.SnapshotTriggerPeriodic)
	b.Checkpoints().LastPeriodicCheckpointTimestamp = b.Now.UnixMilli()
	b.event(Normal, "CheckpointTriggered", fmt.Sprintf("Triggering a periodic checkpoint (every %s)", every))
	return Action{Kind: ActTriggerCheckpoint, JobID: job.ID, TriggerID: id, FormatType: b.checkpointType()}, 0
}
