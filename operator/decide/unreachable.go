package decide

import (
	"fmt"
	"time"
)

// UnreachableAfter is how many JobManager REST probes in a row must fail before the
// JobManager counts as unreachable: status.error and a Warning event say so, and the
// operator's own polling of the resource backs off (RESTBackoff).
const UnreachableAfter = 3

// AnswerBudgetRetry is how soon a reconcile whose REST answers found the operator's answer
// budget spent (Observation.RESTDeferred) looks again.
const AnswerBudgetRetry = 5 * time.Second

// MaxRESTBackoff caps the wait between probes of an unreachable JobManager.
const MaxRESTBackoff = 5 * time.Minute

// RESTBackoff is how long the operator waits before probing again a JobManager whose REST API
// failed the last failed probes in a row: none below UnreachableAfter, then the progress check
// interval doubled for each further failure, capped at MaxRESTBackoff (and never below
// progress). A spec change or any other watched change is still reconciled at once.
func RESTBackoff(failed int, progress time.Duration) time.Duration {
	if failed < UnreachableAfter {
		return 0
	}
	d := progress
	for range failed - UnreachableAfter + 1 {
		if d >= MaxRESTBackoff/2 {
			return max(MaxRESTBackoff, progress)
		}
		d *= 2
	}
	return d
}

// unreachable reports a JobManager whose REST API failed UnreachableAfter probes in a row and
// stretches the next poll to RESTBackoff; once it answers again it says so. Only a probe of an
// available JobManager counts (the observer probes no other).
func (s *step) unreachable() {
	o := s.in.Observed
	if o.JobManager == nil || !o.JobManager.Available || s.d.DeletionTimestamp != nil {
		return
	}
	before := s.in.RESTFailures
	if o.RESTReachable {
		if before >= UnreachableAfter {
			s.event(Normal, "JobManagerReachable", fmt.Sprintf("The JobManager REST API answers again after %d failed probes", before))
		}
		return
	}
	failed := before + 1
	wait := RESTBackoff(failed, s.in.Options.ProgressCheckInterval)
	if wait == 0 {
		return
	}
	// One Warning event when the message is new (Report.Write), not one per probe.
	s.failObserved("JobManagerUnreachable", "the JobManager REST API does not answer: "+o.RESTError)
	// Only polling is stretched: an action, or a step that only wrote status, goes on.
	if s.res.Action.Kind == ActNone && s.res.RequeueAfter >= s.in.Options.ProgressCheckInterval && s.res.RequeueAfter < wait {
		s.res.RequeueAfter = wait
	}
}
