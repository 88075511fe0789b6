package fakeflink

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestJobWithoutSlotsFails: a job whose slots never come fails with
// NoResourceAvailableException once it has waited slot.request.timeout (the default
// scheduler: it restarts per its strategy) or the adaptive scheduler's resource-wait-timeout
// (it FAILS for good), at that instant.
func TestJobWithoutSlotsFails(t *testing.T) {
	type outcome struct {
		Status    JobStatus
		Exception string
		At        time.Duration // after the JobManager started
	}
	cases := map[string]struct {
		conf []string
		want outcome
	}{
		"default scheduler restarts after 5 minutes": {
			want: outcome{StatusCreated, NoResourceClass + ": Slot request bulk is not fulfillable! Could not allocate the required slot within slot request timeout", 5*time.Minute + 2*time.Second},
		},
		"slot.request.timeout": {
			conf: []string{"slot.request.timeout", "60 s"},
			want: outcome{StatusCreated, NoResourceClass + ": Slot request bulk is not fulfillable! Could not allocate the required slot within slot request timeout", time.Minute + 2*time.Second},
		},
		"without a restart strategy it fails": {
			conf: []string{"restart-strategy.type", "none", "slot.request.timeout", "60 s"},
			want: outcome{StatusFailed, NoResourceClass + ": Slot request bulk is not fulfillable! Could not allocate the required slot within slot request timeout", time.Minute + 2*time.Second},
		},
		"adaptive scheduler fails for good": {
			conf: []string{"jobmanager.scheduler", "adaptive", "jobmanager.adaptive-scheduler.resource-wait-timeout", "2 min"},
			want: outcome{StatusFailed, NoResourceClass + ": Could not acquire the minimum required resources.", 2*time.Minute + 2*time.Second},
		},
		"reactive mode waits for ever": {
			conf: []string{"scheduler-mode", "reactive"},
			want: outcome{Status: StatusCreated},
		},
		"adaptive scheduler ignores slot.request.timeout": {
			conf: []string{"jobmanager.scheduler", "adaptive", "slot.request.timeout", "10 s"},
			want: outcome{StatusFailed, NoResourceClass + ": Could not acquire the minimum required resources.", 5*time.Minute + 2*time.Second},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := newWorld(t)
			c := w.bareApp("noslots", statefulConf(tc.conf...))
			start := w.clock.Now()
			w.advance(6*time.Minute, c)
			j := onlyJob(t, c)
			var got outcome
			got.Status = j.Status
			if len(j.Exceptions) > 0 {
				e := j.Exceptions[0]
				got.Exception, got.At = e.Name+": "+e.Message, e.Time.Sub(start)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("after 6 minutes without a TaskManager (-want +got):\n%s", diff)
			}
		})
	}
}

// TestJobGetsItsSlotsBeforeTheTimeout: slots that come in time run the job, and a later wait
// counts from its own beginning.
func TestJobGetsItsSlotsBeforeTheTimeout(t *testing.T) {
	w := newWorld(t)
	c := w.bareApp("late", statefulConf("slot.request.timeout", "60 s"))
	w.advance(50*time.Second, c)
	c.RegisterTaskManager("tm-1", 2)
	w.advance(2*time.Second, c)
	j := onlyJob(t, c)
	wantStatus(t, j, StatusRunning)
	c.RemoveTaskManager("tm-1") // fails over, then waits again
	w.advance(50*time.Second, c)
	wantStatus(t, j, StatusCreated)
	if n := len(j.Exceptions); n != 1 {
		t.Errorf("%d exceptions after the TaskManager's loss, want 1 (no slot timeout yet): %v", n, j.Exceptions)
	}
	w.advance(15*time.Second, c)
	if n := len(j.Exceptions); n != 2 || j.Exceptions[1].Name != NoResourceClass {
		t.Errorf("exceptions %v, want the loss and then a slot timeout", j.Exceptions)
	}
}

// TestAdaptiveTimeoutRunsWithTheSlotsThereAre: on the adaptive scheduler, a slot that comes
// just before the resource timeout runs the job with it when the timeout ends (the
// stabilization wait is cut short), rather than failing it.
func TestAdaptiveTimeoutRunsWithTheSlotsThereAre(t *testing.T) {
	w := newWorld(t)
	c := w.bareApp("late-adaptive", statefulConf("jobmanager.scheduler", "adaptive", "parallelism.default", "4"))
	w.advance(5*time.Minute-3*time.Second, c)
	c.RegisterTaskManager("tm-1", 2)
	w.advance(6*time.Second, c)
	j := onlyJob(t, c)
	wantStatus(t, j, StatusRunning)
	if len(j.Exceptions) != 0 || j.Parallelism() != 2 {
		t.Errorf("exceptions %v, parallelism %d; want none and 2", j.Exceptions, j.Parallelism())
	}
}
