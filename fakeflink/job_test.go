package fakeflink

import (
	"testing"
	"time"

	"github.com/flinkop/flinkop/harness/fixtures"
)

func TestJobTransitions(t *testing.T) {
	cases := map[string]struct {
		from, to JobStatus
		want     bool
	}{
		"a submitted job gets created":            {StatusInitializing, StatusCreated, true},
		"a created job starts running":            {StatusCreated, StatusRunning, true},
		"a running job restarts after a failure":  {StatusRunning, StatusRestarting, true},
		"a restarting job runs again":             {StatusRestarting, StatusRunning, true},
		"a running job is cancelled":              {StatusRunning, StatusCancelling, true},
		"cancelling ends in canceled":             {StatusCancelling, StatusCanceled, true},
		"a running job finishes":                  {StatusRunning, StatusFinished, true},
		"failing ends in failed":                  {StatusFailing, StatusFailed, true},
		"a finished job never runs again":         {StatusFinished, StatusRunning, false},
		"a canceled job never runs again":         {StatusCanceled, StatusRunning, false},
		"a failed job never restarts":             {StatusFailed, StatusRestarting, false},
		"an initializing job cannot run directly": {StatusInitializing, StatusRunning, false},
		"cancelling cannot go back to running":    {StatusCancelling, StatusRunning, false},
		"a created job cannot finish":             {StatusCreated, StatusFinished, false},
		"a suspended job is locally terminal":     {StatusSuspended, StatusRunning, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := CanTransition(tc.from, tc.to); got != tc.want {
				t.Errorf("CanTransition(%s, %s) = %v, want %v", tc.from, tc.to, got, tc.want)
			}
		})
	}
}

func TestSetStatusRejectsIllegalTransition(t *testing.T) {
	j := &Job{ID: "j", Status: StatusFinished, Timestamps: map[JobStatus]time.Time{}}
	if err := j.setStatus(StatusRunning, time.Time{}); err == nil {
		t.Fatal("FINISHED → RUNNING was accepted")
	}
	if j.Status != StatusFinished {
		t.Errorf("status changed to %s after a rejected transition", j.Status)
	}
}

func TestTerminalStates(t *testing.T) {
	for _, s := range AllStatuses {
		want := s == StatusFailed || s == StatusCanceled || s == StatusFinished
		if got := s.IsGloballyTerminal(); got != want {
			t.Errorf("%s.IsGloballyTerminal() = %v, want %v", s, got, want)
		}
		if s.IsTerminal() != (want || s == StatusSuspended) {
			t.Errorf("%s.IsTerminal() = %v", s, s.IsTerminal())
		}
	}
}

// TestParseDuration holds fakeflink's parser to the shared table of Flink's grammar, which
// the operator's parser is held to as well.
func TestParseDuration(t *testing.T) {
	for _, tc := range fixtures.FlinkDurations {
		got, err := ParseDuration(tc.In)
		if (err == nil) != tc.OK || (tc.OK && got != tc.Want) {
			t.Errorf("ParseDuration(%q) = %v, %v; Flink reads it as %v (accepted: %v)", tc.In, got, err, tc.Want, tc.OK)
		}
	}
}
