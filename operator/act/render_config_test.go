package act

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

func TestResourceConfig(t *testing.T) {
	cpu := 0.5
	cases := map[string]struct {
		spec flinkv1beta1.FlinkDeploymentSpec
		conf map[string]string
		want map[string]string
	}{
		"resource.memory is the process size; Kubernetes quantities in bytes": {
			spec: flinkv1beta1.FlinkDeploymentSpec{
				JobManager:  &flinkv1beta1.JobManagerSpec{Resource: flinkv1beta1.Resource{Memory: "2048m", CPU: &cpu}},
				TaskManager: &flinkv1beta1.TaskManagerSpec{Resource: flinkv1beta1.Resource{Memory: "2Gi"}},
			},
			conf: map[string]string{"taskmanager.memory.process.size": "1g"},
			want: map[string]string{
				"jobmanager.memory.process.size": "2048m", "kubernetes.jobmanager.cpu": "0.5",
				"taskmanager.memory.process.size": "2147483648b",
			},
		},
		"no size anywhere: the image's defaults": {
			want: map[string]string{"jobmanager.memory.process.size": "1600m", "taskmanager.memory.process.size": "1728m"},
		},
		"a size in the configuration is kept": {
			conf: map[string]string{"jobmanager.memory.flink.size": "1g", "taskmanager.memory.task.heap.size": "1g"},
			want: map[string]string{"jobmanager.memory.flink.size": "1g", "taskmanager.memory.task.heap.size": "1g"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			conf := map[string]string{}
			for k, v := range tc.conf {
				conf[k] = v
			}
			resourceConfig(tc.spec, conf)
			if diff := cmp.Diff(tc.want, conf); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestConfigFileFormats(t *testing.T) {
	conf := map[string]string{"rest.port": "8081", "a.b": "x y"}
	legacy, err := ConfigFile("flink-conf.yaml", conf)
	if err != nil || legacy != "a.b: x y\nrest.port: 8081\n" {
		t.Errorf("flink-conf.yaml = %q, %v; want unquoted key: value lines", legacy, err)
	}
	yamlFile, err := ConfigFile("config.yaml", conf)
	if err != nil || yamlFile != "a.b: x y\nrest.port: \"8081\"\n" {
		t.Errorf("config.yaml = %q, %v", yamlFile, err)
	}
	if _, err := ConfigFile("flink-conf.yaml", map[string]string{"k": "a\nevil.key: b"}); err == nil {
		t.Error("a value with a line break was written to flink-conf.yaml")
	}
}
