package decide

import (
	"bytes"
	"cmp"
	"encoding/json"
	"regexp"
	"strings"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/clip"
	"github.com/flinkop/flinkop/operator/config"
)

// Report is the error a reconcile reports: status.error (Apache's JSON, see
// flinkv1beta1.FlinkResourceException) and a Warning event with its message (once per
// distinct error). The first error of a reconcile wins, except that a decision's error (a
// refusal, a validation error) replaces an observed one (a failed job), which is usually its
// cause. FlinkDeployments and FlinkSessionJobs report the same way.
type Report struct {
	msg, reason string
	observed    bool     // msg only reports what was observed; a decision's error replaces it
	trace       string   // the failed job's stack trace, as the JobManager reported it
	causes      []string // its "Caused by:" lines
	typ         string   // the exception class, when the reason does not give it
}

// Fail reports a decision's error.
func (r *Report) Fail(reason, msg string) {
	if r.msg != "" && !r.observed {
		return
	}
	r.msg, r.reason, r.observed, r.trace, r.causes, r.typ = msg, reason, false, "", nil, ""
}

// FailObserved reports an error seen in the cluster.
func (r *Report) FailObserved(reason, msg string) {
	if r.msg == "" {
		r.msg, r.reason, r.observed = msg, reason, true
	}
}

// FailJob reports a failed job, with the stack trace of its failure (trace: "" when unknown)
// and its causes (CauseLines of the whole trace; nil: those of trace).
func (r *Report) FailJob(msg, trace string, causes []string) {
	if r.msg == "" {
		r.FailObserved(ReasonJobFailed, msg)
		r.trace, r.causes = trace, causes
		if causes == nil {
			r.causes = CauseLines(trace)
		}
	}
}

// FailDeployment reports a Kubernetes object of the cluster failing (a pod's reason, a
// Deployment's replica failure): Apache's DeploymentFailedException.
func (r *Report) FailDeployment(reason, msg string) {
	if r.msg == "" {
		r.FailObserved(reason, msg)
		r.typ = typeDeploymentFailed
	}
}

// ReasonJobFailed is the reason of a failed job's error.
const ReasonJobFailed = "JobFailed"

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

// Write puts the error into st.Error as Apache's JSON shaped by ex (its message cut to
// clip.Status: it may carry a JobManager's or a pod's text), with a Warning event carrying
// the message when the error is new, and clears a resolved one.
func (r *Report) Write(st *flinkv1beta1.CommonStatus, events *[]Event, ex config.ExceptionOptions) {
	msg := clip.String(r.msg, clip.Status)
	if msg == "" {
		st.Error = ""
		return
	}
	encoded := r.encode(msg, ex)
	if st.Error != encoded {
		*events = append(*events, Event{Type: Warning, Reason: r.reason, Message: msg})
	}
	st.Error = encoded
}

// Apache's operator exception classes, the types of status.error's JSON.
const (
	exceptionPackage      = "org.apache.flink.kubernetes.operator.exception."
	typeReconciliation    = exceptionPackage + "ReconciliationException"
	typeValidation        = exceptionPackage + "ValidationException"
	typeUpgradeFailure    = exceptionPackage + "UpgradeFailureException"
	typeDeploymentFailed  = exceptionPackage + "DeploymentFailedException"
	typeMissingJobManager = exceptionPackage + "MissingJobManagerException"
	typeJobFailedFallback = "org.apache.flink.runtime.JobException"
)

// exceptionTypes maps a reason to the exception class Apache's operator reports it with.
var exceptionTypes = map[string]string{
	"ValidationError": typeValidation, "StatusCorrupt": typeValidation, "UpgradeRefused": typeUpgradeFailure, "UpgradeWaiting": typeUpgradeFailure,
	"JobManagerDeploymentMissing": typeMissingJobManager,
	ReasonJobFailed:               typeJobFailedFallback,
}

// causeLine is a "Caused by: class: message" line of a Java stack trace.
var causeLine = regexp.MustCompile(`^Caused by: ([\w$.]+)(?::\s*(.*))?$`)

// className is a Java exception's first line's class.
var className = regexp.MustCompile(`^((?:[a-zA-Z_$][\w$]*\.)+[A-Z][\w$]*)(?::\s*(.*))?$`)

func (r *Report) encode(msg string, ex config.ExceptionOptions) string {
	e := flinkv1beta1.FlinkResourceException{Type: cmp.Or(r.typ, exceptionTypes[r.reason], typeReconciliation), Message: msg, AdditionalMetadata: map[string]any{"reason": r.reason}}
	// messages are the error's and every cause's: a label matches any of them, as Apache's
	// mapper searches the whole cause chain, however few causes are listed.
	messages := []string{msg}
	if first, _, _ := strings.Cut(r.trace, "\n"); r.trace != "" {
		if m := className.FindStringSubmatch(strings.TrimSpace(first)); m != nil {
			e.Type = m[1]
		}
		if ex.StackTrace {
			e.StackTrace = cut(r.trace, ex.StackTraceMaxLength)
		}
	}
	for _, l := range r.causes {
		m := causeLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		messages = append(messages, m[2])
		if len(e.ThrowableList) < ex.ThrowableMaxCount {
			e.ThrowableList = append(e.ThrowableList, flinkv1beta1.FlinkResourceException{
				Type: cut(m[1], ex.FieldMaxLength), Message: cut(m[2], ex.FieldMaxLength), AdditionalMetadata: map[string]any{},
			})
		}
	}
	rules := ex.LabelRules()
	label(&e, messages, rules)
	for i := range e.ThrowableList {
		label(&e.ThrowableList[i], messages[i+1:], rules)
	}
	e.Type, e.Message = cut(e.Type, ex.FieldMaxLength), cut(e.Message, ex.FieldMaxLength)
	out := encodeJSON(e)
	if len(out) > flinkv1beta1.MaxErrorBytes {
		e.StackTrace = ""
		out = encodeJSON(e)
	}
	if len(out) > flinkv1beta1.MaxErrorBytes {
		e.ThrowableList = nil
		out = encodeJSON(e)
	}
	return out
}

// encodeJSON writes e as JSON, without HTML escapes (a message keeps its < > &).
func encodeJSON(e flinkv1beta1.FlinkResourceException) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(e) // plain data always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// label adds to e the labels whose patterns match one of messages (its own and its causes').
func label(e *flinkv1beta1.FlinkResourceException, messages []string, rules []config.LabelRule) {
	var labels []string
	for _, rule := range rules {
		for _, m := range messages {
			if rule.Pattern.MatchString(m) {
				labels = append(labels, rule.Label)
				break
			}
		}
	}
	if len(labels) > 0 {
		e.AdditionalMetadata["labels"] = labels
	}
}

// cut keeps at most n bytes of s, whole runes.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// ErrorJSON is status.error for an error the controller reports after the decision (invalid
// options, a failed action): Apache's JSON, as Report.Write writes it.
func ErrorJSON(reason, msg string, ex config.ExceptionOptions) string {
	r := Report{msg: msg, reason: reason}
	return r.encode(clip.String(msg, clip.Status), ex)
}
