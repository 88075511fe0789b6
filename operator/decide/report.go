package decide

import (
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/clip"
)

// Report is the error a reconcile reports: status.error and a Warning event (once per
// distinct message). The first error of a reconcile wins, except that a decision's error (a
// refusal, a validation error) replaces an observed one (a failed job), which is usually its
// cause. FlinkDeployments and FlinkSessionJobs report the same way.
type Report struct {
	msg, reason string
	observed    bool // msg only reports what was observed; a decision's error replaces it
}

// Fail reports a decision's error.
func (r *Report) Fail(reason, msg string) {
	if r.msg != "" && !r.observed {
		return
	}
	r.msg, r.reason, r.observed = msg, reason, false
}

// FailObserved reports an error seen in the cluster.
func (r *Report) FailObserved(reason, msg string) {
	if r.msg == "" {
		r.msg, r.reason, r.observed = msg, reason, true
	}
}

// AddObserved reports an error seen in the cluster next to an observed one already reported
// (a failing pod, and the rollback it makes impossible).
func (r *Report) AddObserved(reason, msg string) {
	if r.msg != "" && r.observed {
		r.msg += "; " + msg
		return
	}
	r.FailObserved(reason, msg)
}

// Reason is the reported error's reason ("" when there is none): its Warning Event's reason,
// and the Ready condition's.
func (r *Report) Reason() string { return r.reason }

// Write puts the error into st.Error, cut to clip.Status (it may carry a JobManager's or a
// pod's text), with a Warning event when it is new, and clears a resolved one.
func (r *Report) Write(st *flinkv1beta1.CommonStatus, events *[]Event) {
	msg := clip.String(r.msg, clip.Status)
	if msg != "" && st.Error != msg {
		*events = append(*events, Event{Type: Warning, Reason: r.reason, Message: msg})
	}
	st.Error = msg
}
