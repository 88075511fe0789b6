package decide

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
)

func TestRESTBackoff(t *testing.T) {
	progress := 10 * time.Second
	got := map[int]time.Duration{}
	for _, n := range []int{0, 1, 2, 3, 4, 5, 6, 7, 50} {
		got[n] = RESTBackoff(n, progress)
	}
	want := map[int]time.Duration{
		0: 0, 1: 0, 2: 0, // a blip is not a back-off
		3: 20 * time.Second, 4: 40 * time.Second, 5: 80 * time.Second, 6: 160 * time.Second,
		7: MaxRESTBackoff, 50: MaxRESTBackoff,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RESTBackoff (-want +got):\n%s", diff)
	}
	if d := RESTBackoff(UnreachableAfter, 10*time.Minute); d != 10*time.Minute {
		t.Errorf("with a progress interval above the cap: %s, want the interval", d)
	}
}

func TestUnreachableJobManager(t *testing.T) {
	type result struct {
		Requeue time.Duration
		Error   string
		Events  []string // reasons
	}
	reasons := func(r Result) result {
		out := result{Requeue: r.RequeueAfter, Error: flinkv1beta1.ErrorMessage(r.Status.Error)}
		for _, e := range r.Events {
			out.Events = append(out.Events, e.Reason)
		}
		return out
	}
	unreachableErr := "the JobManager REST API does not answer: connection refused"
	withError := func(d *flinkv1beta1.FlinkDeployment) {
		d.Status.Error = ErrorJSON("JobManagerUnreachable", unreachableErr, config.DefaultExceptionOptions())
	}
	cases := map[string]struct {
		d      *flinkv1beta1.FlinkDeployment
		o      Observation
		before int
		want   result
	}{
		"a first failed probe is only DEPLOYED_NOT_READY, polled as usual": {
			d: deployed(sp), o: cluster(1, "", unreachable), before: 0,
			want: result{Requeue: time.Minute, Events: []string{"JobManagerDeploymentStatusChanged"}},
		},
		"the third failed probe reports it once and backs off": {
			d: deployed(sp, func(d *flinkv1beta1.FlinkDeployment) {
				d.Status.JobManagerDeploymentStatus = flinkv1beta1.JobManagerDeployedNotReady
			}), o: cluster(1, "", unreachable), before: 2,
			want: result{Requeue: time.Minute, Error: unreachableErr, Events: []string{"JobManagerUnreachable"}},
		},
		"later probes repeat no event and back off further": {
			d: deployed(sp, withError, func(d *flinkv1beta1.FlinkDeployment) {
				d.Status.JobManagerDeploymentStatus = flinkv1beta1.JobManagerDeployedNotReady
			}), o: cluster(1, "", unreachable), before: 8,
			want: result{Requeue: MaxRESTBackoff, Error: unreachableErr},
		},
		"an upgrade waiting for the REST API polls with back-off, its own error first": {
			d: upgrading(sp, withError), o: cluster(1, "", unreachable), before: 4,
			want: result{
				Requeue: 80 * time.Second, Error: "savepoint upgrade waits for the JobManager REST API: connection refused",
				Events: []string{"JobManagerDeploymentStatusChanged", "UpgradeWaiting"},
			},
		},
		"an answer after the report says so and clears the error": {
			d: deployed(sp, withError), o: cluster(1, "RUNNING"), before: 5,
			want: result{Requeue: time.Minute, Events: []string{"JobManagerReachable"}},
		},
		"a JobManager still starting is not probed, so not counted": {
			d: deployed(sp), o: cluster(1, "", unreachable, func(o *Observation) { o.JobManager.Available = false }), before: 5,
			want: result{Requeue: time.Minute, Events: []string{"JobManagerDeploymentStatusChanged"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := input(tc.d, tc.o)
			in.RESTFailures = tc.before
			if diff := cmp.Diff(tc.want, reasons(Decide(in))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
