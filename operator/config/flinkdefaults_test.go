package config_test

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flinkop/flinkop/operator/config"
)

// TestFlinkDefaults: the file's Flink and autoscaler keys are every resource's defaults; a
// namespace's keys override them, and a Flink version's override both, "+" versions up to the
// resource's in ascending order, the resource's own version last. Operator options are not
// Flink defaults.
func TestFlinkDefaults(t *testing.T) {
	l, err := config.NewLive([]byte(`
taskmanager.numberOfTaskSlots: "2"
state.savepoints.dir: s3://all/sp
job.autoscaler.enabled: "true"
kubernetes.operator.job.autoscaler.metrics.window: 5m
kubernetes.operator.reconcile.interval: 30 s
kubernetes.operator.default-configuration.namespace.team-a.state.savepoints.dir: s3://team-a/sp
kubernetes.operator.default-configuration.namespace.team-a.parallelism.default: "4"
kubernetes.operator.default-configuration.namespace.team-a.kubernetes.operator.reconcile.interval: 10 s
kubernetes.operator.default-configuration.flink-version.v1_18+.parallelism.default: "6"
kubernetes.operator.default-configuration.flink-version.v1_19+.parallelism.default: "7"
kubernetes.operator.default-configuration.flink-version.v1_20.parallelism.default: "8"
kubernetes.operator.default-configuration.flink-version.v1_20+.pipeline.name: from-1.20
kubernetes.operator.default-configuration.flink-version.v2_0.parallelism.default: "20"
`))
	if err != nil {
		t.Fatal(err)
	}
	base := map[string]string{
		"taskmanager.numberOfTaskSlots": "2", "state.savepoints.dir": "s3://all/sp", "job.autoscaler.enabled": "true",
		"kubernetes.operator.job.autoscaler.metrics.window": "5m",
	}
	with := func(kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	for name, tc := range map[string]struct {
		namespace, version string
		want               map[string]string
	}{
		"another namespace, an old version": {"other", "v1_17", base},
		"a namespace's keys":                {"team-a", "v1_17", with("state.savepoints.dir", "s3://team-a/sp", "parallelism.default", "4")},
		"+ versions in order":               {"other", "v1_19", with("parallelism.default", "7")},
		"the version's own key last":        {"team-a", "v1_20", with("state.savepoints.dir", "s3://team-a/sp", "parallelism.default", "8", "pipeline.name", "from-1.20")},
		"a later version":                   {"other", "v2_1", with("parallelism.default", "7", "pipeline.name", "from-1.20")},
		"no version":                        {"other", "", base},
	} {
		t.Run(name, func(t *testing.T) {
			got := l.FlinkDefaults(tc.namespace, tc.version)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("FlinkDefaults(%s, %s) (-want +got):\n%s", tc.namespace, tc.version, diff)
			}
			if again := l.FlinkDefaults(tc.namespace, tc.version); reflect.ValueOf(again).UnsafePointer() != reflect.ValueOf(got).UnsafePointer() {
				t.Error("computed again: a reconcile would build the map each time")
			}
		})
	}
}
