package decide

import (
	"fmt"
	"testing"
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestHealthBaseline: the restart baseline in status.clusterInfo is taken on a first count, on
// a lower one, and once it is older than the window when the count moved; a count that did not
// move keeps it (no status write for a job that does not restart).
func TestHealthBaseline(t *testing.T) {
	info := func(n int64, ago time.Duration) string {
		at := now.Add(-ago).UnixMilli()
		return fmt.Sprintf(`{"timeStamp":%d,"numRestarts":%d,"numRestartsEvaluationTimeStamp":%d}`, at, n, at)
	}
	cases := map[string]struct {
		before   string
		observed int64
		want     string
	}{
		"first count":                           {"", 7, info(7, 0)},
		"lower count":                           {info(9, time.Minute), 2, info(2, 0)},
		"within the window, kept":               {info(3, time.Minute), 5, info(3, time.Minute)},
		"older than the window, moved: taken":   {info(3, 10*time.Minute), 5, info(5, 0)},
		"older than the window, still: kept":    {info(3, 10*time.Minute), 3, info(3, 10*time.Minute)},
		"from the future (a clock step): taken": {info(3, -time.Hour), 3, info(3, 0)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d := deployed(ls, func(d *flinkv1beta1.FlinkDeployment) {
				if tc.before != "" {
					d.Status.ClusterInfo = map[string]string{ClusterHealthInfoKey: tc.before}
				}
			})
			n := tc.observed
			got := Decide(inputWith(d, cluster(1, "RUNNING", func(o *Observation) { o.Job.NumRestarts = &n }), func(in *Input) {
				in.Options.HealthCheck, in.Options.HealthRestartsWindow = true, 2*time.Minute
			}))
			if g := got.Status.ClusterInfo[ClusterHealthInfoKey]; g != tc.want {
				t.Errorf("baseline %s, want %s", g, tc.want)
			}
		})
	}
}
