package decide

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

func TestClusterInfo(t *testing.T) {
	withResources := func(d *flinkv1beta1.FlinkDeployment) {
		cpu, half := 1.0, 0.5
		d.Spec.Mode = flinkv1beta1.DeploymentModeStandalone // TaskManagers counted from their Deployment
		jmReplicas := int32(1)
		d.Spec.JobManager = &flinkv1beta1.JobManagerSpec{Resource: flinkv1beta1.Resource{CPU: &cpu, Memory: "2048m"}, Replicas: &jmReplicas}
		d.Spec.TaskManager = &flinkv1beta1.TaskManagerSpec{Resource: flinkv1beta1.Resource{CPU: &half, Memory: "1Gi"}}
		r := newReconciledSpec(d.Spec, 1, false, RestoreSavepoint)
		d.Status.ReconciliationStatus.LastReconciledSpec = r.Encode()
	}
	version := func(o *Observation) {
		o.Version = &FlinkVersionInfo{Version: "1.20.1", Revision: "abc1234 @ 2025-02-01T00:00:00+01:00"}
	}
	twoTMs := func(o *Observation) { o.TaskManager = &DeploymentState{Replicas: 2} }
	cases := map[string]struct {
		d    *flinkv1beta1.FlinkDeployment
		o    Observation
		want map[string]string
	}{
		"version read, resources from the spec and the observed TaskManagers": {
			d: deployed(sp, withResources), o: cluster(1, "RUNNING", version, twoTMs),
			want: map[string]string{
				"flink-version": "1.20.1", "flink-revision": "abc1234 @ 2025-02-01T00:00:00+01:00",
				"total-cpu": "2.0", "total-memory": "4294967296",
			},
		},
		"native: the TaskManagers its job needs (parallelism 2 over 2 slots), not a Deployment's": {
			d: deployed(sp, withResources, func(d *flinkv1beta1.FlinkDeployment) {
				d.Spec.Mode = ""
				r := newReconciledSpec(d.Spec, 1, false, RestoreSavepoint)
				d.Status.ReconciliationStatus.LastReconciledSpec = r.Encode()
			}),
			o:    cluster(1, "RUNNING", version, twoTMs),
			want: map[string]string{"flink-version": "1.20.1", "flink-revision": "abc1234 @ 2025-02-01T00:00:00+01:00", "total-cpu": "1.5", "total-memory": "3221225472"},
		},
		"nothing before the version is known": {d: deployed(sp, withResources), o: cluster(1, "RUNNING", twoTMs)},
		"a kept version is refreshed with the resources": {
			d: deployed(sp, withResources, func(d *flinkv1beta1.FlinkDeployment) {
				d.Status.ClusterInfo = map[string]string{"flink-version": "1.19.0", "flink-revision": "x"}
			}),
			o:    cluster(1, "RUNNING"),
			want: map[string]string{"flink-version": "1.19.0", "flink-revision": "x", "total-cpu": "1.5", "total-memory": "3221225472"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Decide(input(tc.d, tc.o))
			if diff := cmp.Diff(tc.want, got.Status.ClusterInfo); diff != "" {
				t.Errorf("clusterInfo (-want +got):\n%s", diff)
			}
		})
	}
}
