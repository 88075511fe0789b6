package decide

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestJobExceptionEvents(t *testing.T) {
	stack := "org.apache.flink.runtime.JobException: Recovery is suppressed\n\tat a.B.c(B.java:1)\n\tat a.B.d(B.java:2)\nCaused by: java.io.IOException: disk full\n\tat a.B.e(B.java:3)"
	job := func(id string, ts ...int64) *JobObservation {
		j := &JobObservation{ID: id}
		for _, t := range ts {
			j.Exceptions = append(j.Exceptions, NewJobException(t, "Source (1/2)", stack))
		}
		return j
	}
	msg := "in task Source (1/2): org.apache.flink.runtime.JobException: Recovery is suppressed\n\tat a.B.c(B.java:1)\n... (3 more lines)\nroot cause: java.io.IOException: disk full"
	tests := map[string]struct {
		mark     ExceptionMark
		job      *JobObservation
		limit    int
		want     []string
		wantMark ExceptionMark
	}{
		"first look after a start: nothing reported, the newest marked": {
			job: job("j1", 100, 300, 200), limit: 10, wantMark: ExceptionMark{"j1", 300},
		},
		"first look at a job without exceptions marks it": {
			job: job("j1"), limit: 10, wantMark: ExceptionMark{"j1", 0},
		},
		"the new ones, newest first": {
			mark: ExceptionMark{"j1", 100}, job: job("j1", 100, 300, 200), limit: 10,
			want: []string{msg, msg}, wantMark: ExceptionMark{"j1", 300},
		},
		"nothing new": {
			mark: ExceptionMark{"j1", 300}, job: job("j1", 100, 300), limit: 10, wantMark: ExceptionMark{"j1", 300},
		},
		"at most limit": {
			mark: ExceptionMark{"j1", 0}, job: job("j1", 1, 2, 3, 4), limit: 2,
			want: []string{msg, msg}, wantMark: ExceptionMark{"j1", 4},
		},
		"a new job: all of its exceptions": {
			mark: ExceptionMark{"j1", 900}, job: job("j2", 5), limit: 10,
			want: []string{msg}, wantMark: ExceptionMark{"j2", 5},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			events, mark := JobExceptionEvents(tc.mark, tc.job, tc.limit, 2)
			var got []string
			for _, e := range events {
				if e.Type != Warning || e.Reason != "JobException" {
					t.Errorf("event %s %s, want Warning JobException", e.Type, e.Reason)
				}
				got = append(got, e.Message)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
			if mark != tc.wantMark {
				t.Errorf("mark = %+v, want %+v", mark, tc.wantMark)
			}
		})
	}
}

func TestNewJobExceptionIsBounded(t *testing.T) {
	e := NewJobException(1, "t", strings.Repeat("line\n", 10*maxStackLines))
	if n := strings.Count(e.StackTrace, "\n") + 1; n > maxStackLines || len(e.StackTrace) > maxStackBytes {
		t.Errorf("kept %d lines, %d bytes", n, len(e.StackTrace))
	}
}
