package decide

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
)

// TestStatusErrorIsApachesJSON: status.error is the JSON Apache's operator writes (type,
// message, additionalMetadata, throwableList), shaped by the kubernetes.operator.exception.*
// options, while the Warning Event carries the message.
func TestStatusErrorIsApachesJSON(t *testing.T) {
	trace := strings.Join([]string{
		"org.apache.flink.runtime.JobException: Recovery is suppressed by NoRestartBackoffTimeStrategy",
		"\tat org.apache.flink.runtime.executiongraph.failover.ExecutionFailureHandler.handleFailure(ExecutionFailureHandler.java:180)",
		"Caused by: java.lang.RuntimeException: boom in the sink",
		"\tat org.example.Sink.invoke(Sink.java:12)",
		"Caused by: java.io.IOException: disk full",
	}, "\n")
	defaults := config.DefaultExceptionOptions()
	for name, tc := range map[string]struct {
		report func(*Report)
		ex     func(*config.ExceptionOptions)
		want   flinkv1beta1.FlinkResourceException
	}{
		"a validation error": {
			report: func(r *Report) { r.Fail("ValidationError", "invalid spec: job.jarURI is required") },
			want: flinkv1beta1.FlinkResourceException{
				Type: typeValidation, Message: "invalid spec: job.jarURI is required", AdditionalMetadata: map[string]any{"reason": "ValidationError"},
			},
		},
		"a failing pod": {
			report: func(r *Report) {
				r.FailDeployment("CrashLoopBackOff", "JobManager pod failing: CrashLoopBackOff: back-off")
			},
			want: flinkv1beta1.FlinkResourceException{
				Type: typeDeploymentFailed, Message: "JobManager pod failing: CrashLoopBackOff: back-off", AdditionalMetadata: map[string]any{"reason": "CrashLoopBackOff"},
			},
		},
		"a failed job: Flink's class, its causes up to the count": {
			report: func(r *Report) { r.FailJob("Job j failed: Recovery is suppressed", trace, nil) },
			want: flinkv1beta1.FlinkResourceException{
				Type: "org.apache.flink.runtime.JobException", Message: "Job j failed: Recovery is suppressed", AdditionalMetadata: map[string]any{"reason": "JobFailed"},
				ThrowableList: []flinkv1beta1.FlinkResourceException{
					{Type: "java.lang.RuntimeException", Message: "boom in the sink", AdditionalMetadata: map[string]any{}},
					{Type: "java.io.IOException", Message: "disk full", AdditionalMetadata: map[string]any{}},
				},
			},
		},
		"causes read from the whole trace when the kept trace stops before them": {
			report: func(r *Report) {
				r.FailJob("Job j failed", "org.apache.flink.runtime.JobException: Recovery is suppressed\n\tat x", CauseLines(trace))
			},
			ex: func(e *config.ExceptionOptions) { e.ThrowableMaxCount, e.LabelMapper = 1, "disk:storage" },
			want: flinkv1beta1.FlinkResourceException{
				Type: "org.apache.flink.runtime.JobException", Message: "Job j failed", AdditionalMetadata: map[string]any{"reason": "JobFailed", "labels": []any{"storage"}},
				ThrowableList: []flinkv1beta1.FlinkResourceException{
					{Type: "java.lang.RuntimeException", Message: "boom in the sink", AdditionalMetadata: map[string]any{"labels": []any{"storage"}}},
				},
			},
		},
		"one cause, labels, the stack trace cut, fields cut": {
			report: func(r *Report) { r.FailJob("Job j failed: Recovery is suppressed", trace, nil) },
			ex: func(e *config.ExceptionOptions) {
				e.ThrowableMaxCount, e.StackTrace, e.StackTraceMaxLength, e.FieldMaxLength = 1, true, 20, 12
				e.LabelMapper = "disk full:storage,boom:user-code,nothing:never"
			},
			want: flinkv1beta1.FlinkResourceException{
				Type: "org.apache.f", Message: "Job j failed", StackTrace: trace[:20],
				AdditionalMetadata: map[string]any{"reason": "JobFailed", "labels": []any{"storage", "user-code"}},
				ThrowableList: []flinkv1beta1.FlinkResourceException{
					{Type: "java.lang.Ru", Message: "boom in the ", AdditionalMetadata: map[string]any{"labels": []any{"storage", "user-code"}}},
				},
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			var r Report
			tc.report(&r)
			ex := defaults
			if tc.ex != nil {
				tc.ex(&ex)
			}
			var st flinkv1beta1.CommonStatus
			var events []Event
			r.Write(&st, &events, ex)
			got, ok := flinkv1beta1.ParseError(st.Error)
			if !ok {
				t.Fatalf("status.error is not Apache's JSON: %s", st.Error)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("status.error (-want +got):\n%s", diff)
			}
			if len(events) != 1 || events[0].Message != r.msg || strings.HasPrefix(events[0].Message, "{") {
				t.Errorf("events %+v, want one Warning with the message", events)
			}
			again := []Event{}
			r.Write(&st, &again, ex)
			if len(again) != 0 {
				t.Errorf("the same error written again warned again: %+v", again)
			}
		})
	}
}

// TestStatusErrorStaysBounded: a huge stack trace is left out rather than make status.error
// longer than MaxErrorBytes.
func TestStatusErrorStaysBounded(t *testing.T) {
	trace := "java.lang.RuntimeException: x\n" + strings.Repeat("Caused by: java.lang.Error: "+strings.Repeat("y", 8000)+"\n", 10)
	ex := config.ExceptionOptions{FieldMaxLength: 8192, StackTrace: true, StackTraceMaxLength: 8192, ThrowableMaxCount: 10}
	var r Report
	r.FailJob("Job j failed", trace, nil)
	var st flinkv1beta1.CommonStatus
	r.Write(&st, &[]Event{}, ex)
	if len(st.Error) > flinkv1beta1.MaxErrorBytes {
		t.Errorf("status.error is %d bytes, over %d", len(st.Error), flinkv1beta1.MaxErrorBytes)
	}
	if got := flinkv1beta1.ErrorMessage(st.Error); got != "Job j failed" {
		t.Errorf("message %q", got)
	}
}
