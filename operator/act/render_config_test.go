package act

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

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
		"resources wins over resource; request before limit; limit factors": {
			spec: flinkv1beta1.FlinkDeploymentSpec{
				JobManager: &flinkv1beta1.JobManagerSpec{
					Resource:  flinkv1beta1.Resource{Memory: "1g", CPU: &cpu},
					Resources: &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2048m"), corev1.ResourceCPU: resource.MustParse("1")}},
				},
				TaskManager: &flinkv1beta1.TaskManagerSpec{Resources: &corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")},
					Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("4Gi"), corev1.ResourceCPU: resource.MustParse("2")},
				}},
			},
			want: map[string]string{
				"jobmanager.memory.process.size": "2048m", "kubernetes.jobmanager.cpu": "1",
				"taskmanager.memory.process.size": "4294967296b", "kubernetes.taskmanager.cpu": "0.5",
				"kubernetes.taskmanager.cpu.limit-factor": "4",
			},
		},
		"an empty resources block leaves resource in force": {
			spec: flinkv1beta1.FlinkDeploymentSpec{
				JobManager: &flinkv1beta1.JobManagerSpec{Resource: flinkv1beta1.Resource{Memory: "1g"}, Resources: &corev1.ResourceRequirements{}},
			},
			want: map[string]string{"jobmanager.memory.process.size": "1g", "taskmanager.memory.process.size": "1728m"},
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

func TestContainerMemoryIsFlinksReading(t *testing.T) {
	r := resolveResources(flinkv1beta1.Resource{}, &corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2048m")},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("3Gi")},
	})
	if got := r.Container.Requests[corev1.ResourceMemory]; got.Value() != 2048<<20 {
		t.Errorf("memory request %s, want 2048 MiB (Flink's reading of 2048m)", got.String())
	}
	if got := r.Container.Limits[corev1.ResourceMemory]; got.Value() != 3<<30 {
		t.Errorf("memory limit %s, want 3Gi", got.String())
	}
}
