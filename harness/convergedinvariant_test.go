package harness

import (
	"testing"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestUntrueRefusal shows invariant 5 rejecting a refusal that says the job keeps running
// while the job has ended: what a savepoint upgrade whose result Flink forgot once reported.
func TestUntrueRefusal(t *testing.T) {
	const keeps = "upgrade savepoint failed (disk full) and no externalized checkpoint is newer than the last savepoint; the job keeps running the previous spec"
	for name, tc := range map[string]struct {
		refusal string
		job     flinkv1beta1.JobStatusState
		untrue  bool
	}{
		"job running":                   {refusal: keeps, job: flinkv1beta1.JobStatusRunning},
		"job restarting":                {refusal: keeps, job: flinkv1beta1.JobStatusRestarting},
		"job finished":                  {refusal: keeps, job: flinkv1beta1.JobStatusFinished, untrue: true},
		"job cancelled":                 {refusal: keeps, job: flinkv1beta1.JobStatusCanceled, untrue: true},
		"job failed":                    {refusal: keeps, job: flinkv1beta1.JobStatusFailed, untrue: true},
		"another refusal, job finished": {refusal: "refusing to start the job from empty state", job: flinkv1beta1.JobStatusFinished},
	} {
		t.Run(name, func(t *testing.T) {
			if got := untrueRefusal(tc.refusal, tc.job) != ""; got != tc.untrue {
				t.Errorf("untrue = %v, want %v", got, tc.untrue)
			}
		})
	}
}
