package decide

import (
	"testing"
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestRestReadyDelay: a freshly deployed JobManager that runs but whose REST API does not
// answer yet (DEPLOYED_NOT_READY) is looked at again after observer.rest-ready.delay, as the
// Apache operator reschedules it; one whose rollout is not done after the progress interval.
func TestRestReadyDelay(t *testing.T) {
	fresh := func(d *flinkv1beta1.FlinkDeployment) { d.Status.ReconciliationStatus.LastStableSpec = "" }
	cases := map[string]struct {
		o     Observation
		delay time.Duration
		want  time.Duration
	}{
		"REST not answering, a short delay":    {cluster(1, "", unreachable), 3 * time.Second, 3 * time.Second},
		"REST not answering, a long delay":     {cluster(1, "", unreachable), 30 * time.Second, 30 * time.Second},
		"still rolling out: progress interval": {cluster(1, "", unreachable, func(o *Observation) { o.JobManager.Available = false }), 30 * time.Second, 10 * time.Second},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Decide(inputWith(deployed(sp, fresh), tc.o, func(in *Input) { in.Options.RestReadyDelay = tc.delay }))
			if got.RequeueAfter != tc.want {
				t.Errorf("requeue after %s, want %s (JobManager %s)", got.RequeueAfter, tc.want, got.Status.JobManagerDeploymentStatus)
			}
		})
	}
}
