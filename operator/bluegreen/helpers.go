package bluegreen

import (
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/clip"
	"github.com/flinkop/flinkop/operator/decide"
)

// fail sets FAILING with msg (cut to clip.Status: it may carry a JobManager's text); the
// Warning is recorded when the message is new.
func (s *step) fail(reason, msg string) {
	msg = clip.String(msg, clip.Status)
	if s.st.Error != msg || s.st.JobStatus.State != flinkv1beta1.JobStatusFailing {
		s.event(decide.Warning, reason, msg)
	}
	s.st.Error = msg
	s.st.JobStatus.State = flinkv1beta1.JobStatusFailing
}

func (s *step) event(t decide.EventType, reason, msg string) {
	s.res.Events = append(s.res.Events, decide.Event{Type: t, Reason: reason, Message: msg})
}

// requeue asks to look again after d (the soonest asked wins).
func (s *step) requeue(d time.Duration) {
	if d <= 0 {
		d = soon
	}
	if s.res.RequeueAfter == 0 || d < s.res.RequeueAfter {
		s.res.RequeueAfter = d
	}
}

func (s *step) resetMarkers() {
	s.st.AbortTimestamp, s.st.DeploymentReadyTimestamp, s.st.SavepointTriggerID = Epoch, Epoch, ""
}

func (s *step) stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// parse reads a status timestamp; an unreadable one is the epoch.
func (s *step) parse(v string) time.Time {
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Unix(0, 0).UTC()
	}
	return t
}

// untilAbort is how long until status.abortTimestamp (0 or less: it passed).
func (s *step) untilAbort() time.Duration { return s.parse(s.st.AbortTimestamp).Sub(s.in.Now) }

// equalStatus compares two statuses, ignoring the timestamp of the last write.
func equalStatus(a, b flinkv1beta1.FlinkBlueGreenDeploymentStatus) bool {
	a.LastReconciledTimestamp, b.LastReconciledTimestamp = "", ""
	return sameJSON(a, b)
}
