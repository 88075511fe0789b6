package v1beta1

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Hostile and malformed FlinkDeployments: each is refused with the field it concerns.
func TestFlinkDeploymentValidateBounds(t *testing.T) {
	cases := map[string]struct {
		obj *FlinkDeployment
		// wantFields are the field paths of the expected errors, in order.
		wantFields []string
	}{
		"a 45-character name is valid": {obj: app(func(d *FlinkDeployment) { d.Name = "a" + strings.Repeat("b", 44) })},
		"a 46-character name": {
			obj: app(func(d *FlinkDeployment) { d.Name = "a" + strings.Repeat("b", 45) }), wantFields: []string{"metadata.name"},
		},
		"a name ending in -rest":        {obj: app(func(d *FlinkDeployment) { d.Name = "coll-rest" }), wantFields: []string{"metadata.name"}},
		"a name ending in -taskmanager": {obj: app(func(d *FlinkDeployment) { d.Name = "coll-taskmanager" }), wantFields: []string{"metadata.name"}},
		"an image pull policy Kubernetes does not know": {
			obj: app(func(d *FlinkDeployment) { d.Spec.ImagePullPolicy = "Sometimes" }), wantFields: []string{"spec.imagePullPolicy"},
		},
		"a dotted name":             {obj: app(func(d *FlinkDeployment) { d.Name = "a.b" }), wantFields: []string{"metadata.name"}},
		"a name with a digit first": {obj: app(func(d *FlinkDeployment) { d.Name = "1a" }), wantFields: []string{"metadata.name"}},
		"high-availability.cluster-id is forbidden": {
			obj: app(withConf("high-availability.cluster-id", "other")), wantFields: []string{"spec.flinkConfiguration[high-availability.cluster-id]"},
		},
		"internal keys are forbidden": {
			obj: app(withConf("$internal.pipeline.job-id", "00000000000000000000000000000000")), wantFields: []string{"spec.flinkConfiguration[$internal.pipeline.job-id]"},
		},
		"logConfiguration cannot replace config.yaml": {
			obj: app(func(d *FlinkDeployment) {
				d.Spec.LogConfiguration = map[string]string{"config.yaml": "x: y", "log4j-console.properties": "rootLogger.level = INFO"}
			}),
			wantFields: []string{"spec.logConfiguration[config.yaml]"},
		},
		"negative cpu": {
			obj: app(func(d *FlinkDeployment) { d.Spec.TaskManager = &TaskManagerSpec{Resource: Resource{CPU: ptr(-1.0)}} }), wantFields: []string{"spec.taskManager.resource.cpu"},
		},
		"overflowing cpu": {
			obj: app(func(d *FlinkDeployment) {
				d.Spec.JobManager = &JobManagerSpec{Resource: Resource{CPU: ptr(math.MaxFloat64)}}
			}), wantFields: []string{"spec.jobManager.resource.cpu"},
		},
		"NaN cpu": {
			obj: app(func(d *FlinkDeployment) {
				d.Spec.JobManager = &JobManagerSpec{Resource: Resource{CPU: ptr(math.NaN())}}
			}), wantFields: []string{"spec.jobManager.resource.cpu"},
		},
		"junk memory": {
			obj: app(func(d *FlinkDeployment) { d.Spec.JobManager = &JobManagerSpec{Resource: Resource{Memory: "lots"}} }), wantFields: []string{"spec.jobManager.resource.memory"},
		},
		"zero memory": {
			obj: app(func(d *FlinkDeployment) { d.Spec.TaskManager = &TaskManagerSpec{Resource: Resource{Memory: "0m"}} }), wantFields: []string{"spec.taskManager.resource.memory"},
		},
		"Flink memory forms are valid": {
			obj: app(func(d *FlinkDeployment) {
				d.Spec.JobManager = &JobManagerSpec{Resource: Resource{Memory: "2048m", CPU: ptr(0.5)}}
				d.Spec.TaskManager = &TaskManagerSpec{Resource: Resource{Memory: "2 gb"}}
			}),
		},
		"parallelism at Flink's bound is valid": {
			obj: app(withConf("jobmanager.scheduler", "adaptive"), func(d *FlinkDeployment) { d.Spec.Job.Parallelism = ptr(int32(MaxParallelism)) }),
		},
		"parallelism 2147483647": {
			obj: app(withConf("jobmanager.scheduler", "adaptive"), func(d *FlinkDeployment) { d.Spec.Job.Parallelism = ptr(int32(math.MaxInt32)) }), wantFields: []string{"spec.job.parallelism"},
		},
		"zero parallelism": {
			obj: app(func(d *FlinkDeployment) { d.Spec.Job.Parallelism = ptr(int32(0)) }), wantFields: []string{"spec.job.parallelism"},
		},
		"too many TaskManagers": {
			obj: app(func(d *FlinkDeployment) { d.Spec.TaskManager = &TaskManagerSpec{Replicas: ptr(int32(MaxReplicas + 1))} }), wantFields: []string{"spec.taskManager.replicas"},
		},
		"a spec over the size bound": {
			obj: app(withConf("env.java.opts.all", strings.Repeat("x", MaxSpecBytes))), wantFields: []string{"spec"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, e := range tc.obj.Validate() {
				got = append(got, e.Field)
			}
			if diff := cmp.Diff(tc.wantFields, got); diff != "" {
				t.Errorf("Validate() fields mismatch (-want +got):\n%s\nerrors: %v", diff, tc.obj.Validate())
			}
		})
	}
}

// Jar URIs are checked on the parsed value: ".jar" in a query or fragment is a decoy.
func TestFlinkSessionJobValidateJarURI(t *testing.T) {
	for uri, valid := range map[string]bool{
		"local:///opt/flink/examples/job.jar":   true,
		"file:///opt/jars/job.jar":              true,
		"https://repo.example.com/a/job.jar":    true,
		"http://repo.example.com/job.jar":       true,
		"file:///etc/passwd?x.jar":              false,
		"file:///etc/passwd#.jar":               false,
		"file:///etc/passwd%3Fx.jar":            false,
		"https://user:secret@example.com/j.jar": false,
		"https://example.com/job.jar?":          false,
		"s3://bucket/job.jar":                   false,
		"https://example.com/.jar":              false,
		"https://example.com/job.zip":           false,
		"job.jar":                               false,
	} {
		j := &FlinkSessionJob{Spec: FlinkSessionJobSpec{DeploymentName: "session", Job: &JobSpec{JarURI: uri}}}
		errs := j.Validate()
		if (len(errs) == 0) != valid {
			t.Errorf("%s: Validate() = %v, want valid=%v", uri, errs, valid)
		}
		if len(errs) > 0 && strings.Contains(errs.ToAggregate().Error(), "secret") {
			t.Errorf("%s: the error shows the password: %v", uri, errs)
		}
	}
}

func TestFlinkSessionJobValidateBounds(t *testing.T) {
	j := &FlinkSessionJob{Spec: FlinkSessionJobSpec{DeploymentName: "session", Job: &JobSpec{JarURI: "local:///j.jar", Parallelism: ptr(int32(-1))}}}
	j.Spec.FlinkConfiguration = NewFlinkConfiguration(map[string]string{"high-availability.cluster-id": "x"})
	var got []string
	for _, e := range j.Validate() {
		got = append(got, e.Field)
	}
	want := []string{"spec.job.parallelism", "spec.flinkConfiguration[high-availability.cluster-id]"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fields mismatch (-want +got):\n%s", diff)
	}
}

func TestLegacyConfigValidation(t *testing.T) {
	for name, tc := range map[string]struct {
		version FlinkVersion
		value   string
		wantErr bool
	}{
		"1.18: a line break would start a new key": {"v1_18", "a\nrest.port: 1", true},
		"1.18: '#' starts a comment":               {"v1_18", "pass#word", true},
		"1.18: surrounding blanks are trimmed":     {"v1_18", " x", true},
		"1.18: a plain value":                      {"v1_18", "x y", false},
		"1.20 reads config.yaml as YAML":           {"v1_20", "pass#word", false},
	} {
		t.Run(name, func(t *testing.T) {
			d := app(withConf("metrics.reporter.x.password", tc.value), func(d *FlinkDeployment) { d.Spec.FlinkVersion = tc.version })
			errs := d.Validate()
			if got := len(errs) > 0; got != tc.wantErr {
				t.Errorf("errors %v, want error %v", errs, tc.wantErr)
			}
		})
	}
}
