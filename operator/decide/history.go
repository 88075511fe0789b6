package decide

import (
	"fmt"
	"sort"
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// periodicSavepoint triggers a savepoint every kubernetes.operator.periodic.savepoint.interval
// while the job runs. The interval counts from the last periodic trigger (or the job's start),
// and the trigger id derives from that time, so a retry after a crash asks Flink for the same
// savepoint instead of a second one.
func (s *step) periodicSavepoint() bool {
	every := s.in.Options.PeriodicSavepoint
	o := s.in.Observed
	if every <= 0 || o.Job == nil || o.Job.State != "RUNNING" || !o.RESTReachable {
		return false
	}
	sp := s.st.JobStatus.SavepointInfo
	last := o.Job.StartTime
	if sp != nil && sp.LastPeriodicSavepointTimestamp > last {
		last = sp.LastPeriodicSavepointTimestamp
	}
	due := time.UnixMilli(last).Add(every)
	if s.in.Now.Before(due) {
		s.requeue(due.Sub(s.in.Now))
		return false
	}
	id := TriggerID(string(s.d.UID), "periodic", last)
	s.res.Action = Action{Kind: ActTriggerSavepoint, JobID: o.Job.ID, TriggerID: id, FormatType: s.in.Options.SavepointFormat}
	s.setTrigger(id, flinkv1beta1.SnapshotTriggerPeriodic)
	s.savepointInfo().LastPeriodicSavepointTimestamp = s.in.Now.UnixMilli()
	s.event(Normal, "SavepointTriggered", fmt.Sprintf("Triggering a periodic savepoint (every %s)", every))
	return true
}

// cleanHistory trims the savepoint history to kubernetes.operator.savepoint.history.max.count
// and max.age. A trimmed savepoint is disposed through Flink (one per reconcile) and its entry
// dropped in the same status write, so a disposal that fails keeps the entry for the next try.
// The newest savepoint is never trimmed, and a trimmed one's record goes with it. Upgrade savepoints leave the history but are not
// disposed (a rolled-back or restarted job may still restore one, as with the Apache
// operator); with kubernetes.operator.savepoint.cleanup.enabled false nothing is disposed.
func (s *step) cleanHistory() {
	sp := s.st.JobStatus.SavepointInfo
	if sp == nil || len(sp.SavepointHistory) == 0 {
		return
	}
	keep := trimHistory(sp.SavepointHistory, s.in.Options.SavepointHistoryMaxCount, s.in.Options.SavepointHistoryMaxAge, s.in.Now)
	if len(keep) == len(sp.SavepointHistory) {
		return
	}
	kept := map[int64]bool{}
	for _, k := range keep {
		kept[k.TimeStamp] = true
	}
	var out []flinkv1beta1.Savepoint
	disposed := false
	for _, old := range sp.SavepointHistory {
		switch {
		case kept[old.TimeStamp]:
			out = append(out, old)
		case !s.disposable(old):
			s.book().forget(old) // dropped from the history, the files stay
		case !disposed && s.in.Observed.RESTReachable:
			s.res.Action = Action{Kind: ActDisposeSavepoint, Path: old.Location}
			s.event(Normal, "SavepointDisposed", "Disposing savepoint "+old.Location+", trimmed from the history")
			s.book().forget(old)
			disposed = true
		default:
			out = append(out, old) // disposed by a later reconcile
		}
	}
	sp.SavepointHistory = out
	if len(out) > len(keep) {
		s.requeue(immediately)
	}
}

// disposable reports whether a trimmed history entry's files may be deleted.
func (s *step) disposable(old flinkv1beta1.Savepoint) bool {
	return s.in.Options.SavepointCleanup && old.TriggerType != flinkv1beta1.SnapshotTriggerUpgrade && old.Location != "" &&
		!WouldRestoreFrom(&s.st.JobStatus, old.Location)
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
