package decide

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/flinkop/flinkop/operator/config"
)

// Bounds of what is kept of a job's exception history.
const (
	// MaxJobExceptions is how many of the newest exceptions an observation keeps: more than
	// kubernetes.operator.events.exceptions.limit-per-reconciliation may ask for.
	MaxJobExceptions = 50
	// maxStackLines and maxStackBytes bound a kept stack trace (an Event shows 1,024 bytes).
	maxStackLines = 100
	maxStackBytes = 4096
)

// JobException is one entry of a job's exception history: when, in which task, and the
// beginning of its stack trace (the exception Flink reports, then its causes).
type JobException struct {
	// Timestamp is when it happened, epoch ms.
	Timestamp int64
	TaskName  string
	// StackTrace is at most maxStackLines lines and maxStackBytes bytes of it.
	StackTrace string
}

// NewJobException keeps a bounded copy of an exception history entry.
func NewJobException(timestamp int64, task, stack string) JobException {
	lines := strings.SplitN(stack, "\n", maxStackLines+1)
	if len(lines) > maxStackLines {
		lines = lines[:maxStackLines]
	}
	kept := strings.Join(lines, "\n")
	if len(kept) > maxStackBytes {
		kept = kept[:maxStackBytes]
	}
	return JobException{Timestamp: timestamp, TaskName: task, StackTrace: kept}
}

// maxCauseBytes bounds each cause line CauseLines keeps.
const maxCauseBytes = 512

// CauseLines are the "Caused by:" lines of a Java stack trace, in order, each cut to
// maxCauseBytes, at most config.MaxThrowables: a failed job's causes, read from the whole
// trace (the kept copy of an exception stops before most of them).
func CauseLines(stack string) []string {
	var out []string
	for line := range strings.Lines(stack) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "Caused by:") && len(out) < config.MaxThrowables {
			out = append(out, cut(line, maxCauseBytes))
		}
	}
	return out
}

// ExceptionMark is the newest exception of a resource's job already reported.
type ExceptionMark struct {
	JobID     string
	Timestamp int64
}

// JobExceptionEvents are the Warning Events JobException for the exceptions of job newer
// than mark, newest first and at most limit, each message the first lines (stackLines) of the
// stack trace with the task when known, as the Apache operator reports them, and the root
// cause; and the mark to
// keep. A zero mark (the operator has not looked at this resource's job since it started)
// reports nothing and marks the newest: after a restart an old exception is not reported again
// (a failed job's cause is in status.error and its JobFailed Event either way). A new job id
// reports all of its exceptions.
func JobExceptionEvents(mark ExceptionMark, job *JobObservation, limit, stackLines int) ([]Event, ExceptionMark) {
	if job == nil {
		return nil, mark
	}
	exceptions := slices.Clone(job.Exceptions)
	slices.SortFunc(exceptions, func(a, b JobException) int { return cmp.Compare(b.Timestamp, a.Timestamp) })
	newest := mark.Timestamp
	if len(exceptions) > 0 && (mark.JobID != job.ID || exceptions[0].Timestamp > newest) {
		newest = exceptions[0].Timestamp
	}
	next := ExceptionMark{JobID: job.ID, Timestamp: newest}
	if mark == (ExceptionMark{}) {
		return nil, next
	}
	var events []Event
	for _, e := range exceptions {
		if (mark.JobID == job.ID && e.Timestamp <= mark.Timestamp) || len(events) >= limit {
			break
		}
		events = append(events, Event{Type: Warning, Reason: "JobException", Message: exceptionMessage(e, stackLines)})
	}
	return events, next
}

// exceptionMessage is e's task, the first stackLines lines of its stack trace and how many
// more, and its root cause: the last "Caused by:" of the trace, which Flink writes after the
// exception it reports (the outermost) and which the first lines rarely reach.
func exceptionMessage(e JobException, stackLines int) string {
	lines := strings.Split(strings.TrimSpace(e.StackTrace), "\n")
	var b strings.Builder
	if e.TaskName != "" {
		fmt.Fprintf(&b, "in task %s: ", e.TaskName)
	}
	shown := min(stackLines, len(lines))
	b.WriteString(strings.Join(lines[:shown], "\n"))
	if more := len(lines) - shown; more > 0 {
		fmt.Fprintf(&b, "\n... (%d more lines)", more)
	}
	for i := len(lines) - 1; i >= shown; i-- {
		if cause, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), "Caused by: "); ok {
			fmt.Fprintf(&b, "\nroot cause: %s", cause)
			break
		}
	}
	return b.String()
}
