package decide

import (
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestShutdownEndedJobManager: the JobManager of an application whose job ended for good is
// deleted (HA kept) once kubernetes.operator.jm-deployment.shutdown-ttl has passed since the
// job's last status change, and kept before; a running job's, a session cluster's and a
// deleted JobManager are left alone.
func TestShutdownEndedJobManager(t *testing.T) {
	ended := func(state string, ago time.Duration) func(*flinkv1beta1.FlinkDeployment) {
		return func(d *flinkv1beta1.FlinkDeployment) {
			d.Status.JobStatus.State = flinkv1beta1.JobStatusState(state)
			d.Status.JobStatus.UpdateTime = strconv.FormatInt(now.Add(-ago).UnixMilli(), 10)
		}
	}
	session := func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job = nil }
	for name, tc := range map[string]struct {
		d    *flinkv1beta1.FlinkDeployment
		obs  Observation
		ttl  time.Duration
		want ActionKind
		// wantPath is status.jobStatus.upgradeSavepointPath after the step.
		wantPath string
	}{
		"FINISHED for longer than the ttl: deleted":  {d: deployed(none, ended("FINISHED", 25*time.Hour)), obs: cluster(1, "FINISHED"), want: ActDeleteCluster},
		"FINISHED within the ttl: kept":              {d: deployed(none, ended("FINISHED", 23*time.Hour)), obs: cluster(1, "FINISHED"), want: ActNone},
		"CANCELED past a shorter ttl: deleted":       {d: deployed(sp, ended("CANCELED", 2*time.Hour)), obs: cluster(1, "CANCELED"), ttl: time.Hour, want: ActDeleteCluster},
		"RUNNING for ever: kept":                     {d: deployed(sp, ended("RUNNING", 48*time.Hour)), obs: cluster(1, "RUNNING"), want: ActNone},
		"session cluster: kept":                      {d: deployed(none, session, ended("FINISHED", 48*time.Hour)), obs: cluster(1, ""), want: ActNone},
		"JobManager already gone: nothing to delete": {d: deployed(none, ended("FINISHED", 48*time.Hour)), obs: missing(), want: ActNone},
		"an old upgrade path is replaced by the ended job's newest checkpoint": {
			d:   deployed(sp, ended("FINISHED", 25*time.Hour), withUpgradePath("file:///sp/initial")),
			obs: cluster(1, "FINISHED", checkpoint("file:///cp/chk-9", now.Add(-25*time.Hour).UnixMilli())), want: ActDeleteCluster, wantPath: "file:///cp/chk-9",
		},
		"an old upgrade path, no snapshot: cleared, not restored later": {
			d: deployed(sp, ended("FINISHED", 25*time.Hour), withUpgradePath("file:///sp/initial")), obs: cluster(1, "FINISHED"), want: ActDeleteCluster,
		},
		"REST API down: kept until the ended job's snapshot can be read": {
			d: deployed(none, ended("FINISHED", 48*time.Hour)), obs: cluster(1, "FINISHED", unreachable), want: ActNone,
		},
		"no update time to count from: kept": {d: deployed(none, ended("FINISHED", 48*time.Hour), func(d *flinkv1beta1.FlinkDeployment) { d.Status.JobStatus.UpdateTime = "" }), obs: cluster(1, "FINISHED"), want: ActNone},
	} {
		t.Run(name, func(t *testing.T) {
			res := Decide(inputWith(tc.d, tc.obs, func(in *Input) {
				if tc.ttl > 0 {
					in.Options.JMShutdownTTL = tc.ttl
				}
			}))
			if diff := cmp.Diff(tc.want, res.Action.Kind); diff != "" {
				t.Fatalf("action (-want +got):\n%s", diff)
			}
			if res.Action.Kind == ActDeleteCluster && res.Action.DeleteHA {
				t.Error("the HA metadata of an ended job was deleted")
			}
			if got := res.Status.JobStatus.UpgradeSavepointPath; res.Action.Kind == ActDeleteCluster && got != tc.wantPath {
				t.Errorf("upgradeSavepointPath %q, want %q", got, tc.wantPath)
			}
		})
	}
}
