package observe

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestRestoresFrom: which jobs keep a savepoint from disposal, and why.
func TestRestoresFrom(t *testing.T) {
	const sp = "s3://b/sp-1"
	last := &flinkv1beta1.SavepointInfo{LastSavepoint: &flinkv1beta1.Savepoint{Location: sp}}
	initial := &flinkv1beta1.JobSpec{InitialSavepointPath: sp}
	for name, tc := range map[string]struct {
		job                  *flinkv1beta1.JobSpec
		js                   flinkv1beta1.JobStatus
		generation, observed int64
		want                 string
	}{
		"upgrade savepoint":                {js: flinkv1beta1.JobStatus{JobID: "j", UpgradeSavepointPath: sp}, generation: 1, observed: 1, want: "its upgrade or last savepoint"},
		"last savepoint":                   {js: flinkv1beta1.JobStatus{JobID: "j", SavepointInfo: last}, generation: 1, observed: 1, want: "its upgrade or last savepoint"},
		"initial savepoint, not started":   {job: initial, generation: 1, want: "its initial savepoint, not yet started from"},
		"initial savepoint, spec unseen":   {job: initial, js: flinkv1beta1.JobStatus{JobID: "j"}, generation: 2, observed: 1, want: "its initial savepoint, not yet started from"},
		"initial savepoint, started since": {job: initial, js: flinkv1beta1.JobStatus{JobID: "j"}, generation: 1, observed: 1},
		"another savepoint":                {js: flinkv1beta1.JobStatus{JobID: "j", UpgradeSavepointPath: "s3://b/sp-2"}, generation: 1, observed: 1},
	} {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, restoresFrom(tc.job, &tc.js, tc.generation, tc.observed, sp)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
