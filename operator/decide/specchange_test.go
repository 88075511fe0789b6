package decide

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestSpecChangedMessage: the SpecChanged Event names each changed value, old and new, in the
// Apache operator's form, hides what Flink hides, and stays short whatever the spec.
func TestSpecChangedMessage(t *testing.T) {
	withConf := func(kv map[string]string) func(*flinkv1beta1.FlinkDeploymentSpec) {
		return func(s *flinkv1beta1.FlinkDeploymentSpec) {
			conf, _ := s.FlinkConfiguration.Flatten()
			for k, v := range kv {
				conf[k] = v
			}
			s.FlinkConfiguration = flinkv1beta1.NewFlinkConfiguration(conf)
		}
	}
	container := func(image string, env ...corev1.EnvVar) func(*flinkv1beta1.FlinkDeploymentSpec) {
		return func(s *flinkv1beta1.FlinkDeploymentSpec) {
			s.PodTemplate = &flinkv1beta1.PodTemplate{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "flink-main-container", Image: image, Env: env}}}}
		}
	}
	manyKeys := map[string]string{}
	for i := range 12 {
		manyKeys[fmt.Sprintf("k%02d", i)] = "v"
	}
	longKeys := map[string]string{}
	for i := range 5 {
		longKeys[fmt.Sprintf("k%d.%s", i, strings.Repeat("x", 150))] = "v"
	}
	longChange := func(i int) string {
		return fmt.Sprintf("flinkConfiguration.k%d.%s : null -> v", i, strings.Repeat("x", 150))
	}
	for name, tc := range map[string]struct {
		old, new []func(*flinkv1beta1.FlinkDeploymentSpec)
		want     string
	}{
		"parallelism": {
			new:  []func(*flinkv1beta1.FlinkDeploymentSpec){func(s *flinkv1beta1.FlinkDeploymentSpec) { p := int32(4); s.Job.Parallelism = &p }},
			want: "UPGRADE change(s) detected (Diff: FlinkDeploymentSpec[job.parallelism : 2 -> 4]), starting reconciliation.",
		},
		"image and a changed key": {
			new: []func(*flinkv1beta1.FlinkDeploymentSpec){
				func(s *flinkv1beta1.FlinkDeploymentSpec) { s.Image = "flink:2.0" },
				withConf(map[string]string{"taskmanager.numberOfTaskSlots": "4"}),
			},
			want: "UPGRADE change(s) detected (Diff: FlinkDeploymentSpec[flinkConfiguration.taskmanager.numberOfTaskSlots : 2 -> 4, " +
				"image : flink:1.20 -> flink:2.0]), starting reconciliation.",
		},
		"a secret key, as Flink hides it": {
			old:  []func(*flinkv1beta1.FlinkDeploymentSpec){withConf(map[string]string{"s3.secret-key": "old-secret"})},
			new:  []func(*flinkv1beta1.FlinkDeploymentSpec){withConf(map[string]string{"s3.secret-key": "new-secret"})},
			want: "UPGRADE change(s) detected (Diff: FlinkDeploymentSpec[flinkConfiguration.s3.secret-key : ****** -> ******]), starting reconciliation.",
		},
		"a pod template leaf, and an environment variable named like a secret": {
			old: []func(*flinkv1beta1.FlinkDeploymentSpec){container("a:1", corev1.EnvVar{Name: "DB_PASSWORD", Value: "hunter2"})},
			new: []func(*flinkv1beta1.FlinkDeploymentSpec){container("a:2", corev1.EnvVar{Name: "DB_PASSWORD", Value: "hunter3"})},
			want: "UPGRADE change(s) detected (Diff: FlinkDeploymentSpec[podTemplate.spec.containers.0.env.0.value : ****** -> ******, " +
				"podTemplate.spec.containers.0.image : a:1 -> a:2]), starting reconciliation.",
		},
		"a whole pod template added, holding a secret": {
			new:  []func(*flinkv1beta1.FlinkDeploymentSpec){container("a:1", corev1.EnvVar{Name: "API_TOKEN", Value: "t"})},
			want: "UPGRADE change(s) detected (Diff: FlinkDeploymentSpec[podTemplate : null -> ******]), starting reconciliation.",
		},
		"a secret in an argument, an environment variable API_KEY, a URL with a password": {
			old: []func(*flinkv1beta1.FlinkDeploymentSpec){
				container("a:1", corev1.EnvVar{Name: "API_KEY", Value: "k1"}),
				func(s *flinkv1beta1.FlinkDeploymentSpec) { s.Job.Args = []string{"--db-password=hunter2"} },
			},
			new: []func(*flinkv1beta1.FlinkDeploymentSpec){
				container("a:1", corev1.EnvVar{Name: "API_KEY", Value: "k2"}),
				func(s *flinkv1beta1.FlinkDeploymentSpec) {
					s.Job.Args = []string{"--db-password=hunter3"}
					s.Job.JarURI = "https://user:pw@jars.example.com/job.jar"
				},
			},
			want: "UPGRADE change(s) detected (Diff: FlinkDeploymentSpec[job.args.0 : ****** -> ******, " +
				"job.jarURI : local:///opt/flink/job.jar -> ******, podTemplate.spec.containers.0.env.0.value : ****** -> ******]), starting reconciliation.",
		},
		"a long value is cut": {
			new:  []func(*flinkv1beta1.FlinkDeploymentSpec){func(s *flinkv1beta1.FlinkDeploymentSpec) { s.Image = strings.Repeat("x", 100) }},
			want: "UPGRADE change(s) detected (Diff: FlinkDeploymentSpec[image : flink:1.20 -> " + strings.Repeat("x", maxValueLen) + "…]), starting reconciliation.",
		},
		"many changes are counted past the tenth": {
			new: []func(*flinkv1beta1.FlinkDeploymentSpec){withConf(manyKeys)},
			want: "UPGRADE change(s) detected (Diff: FlinkDeploymentSpec[flinkConfiguration.k00 : null -> v, flinkConfiguration.k01 : null -> v, " +
				"flinkConfiguration.k02 : null -> v, flinkConfiguration.k03 : null -> v, flinkConfiguration.k04 : null -> v, " +
				"flinkConfiguration.k05 : null -> v, flinkConfiguration.k06 : null -> v, flinkConfiguration.k07 : null -> v, " +
				"flinkConfiguration.k08 : null -> v, flinkConfiguration.k09 : null -> v, and 2 more]), starting reconciliation.",
		},
		"long changes stop within the Event's size": {
			new: []func(*flinkv1beta1.FlinkDeploymentSpec){withConf(longKeys)},
			want: "UPGRADE change(s) detected (Diff: FlinkDeploymentSpec[" + longChange(0) + ", " + longChange(1) + ", " + longChange(2) +
				", and 2 more]), starting reconciliation.",
		},
	} {
		t.Run(name, func(t *testing.T) {
			old, new := spec(flinkv1beta1.UpgradeModeSavepoint), spec(flinkv1beta1.UpgradeModeSavepoint)
			for _, m := range tc.old {
				m(&old)
			}
			for _, m := range tc.new {
				m(&new)
			}
			diff, fields := Diff(old, new)
			if diff := cmp.Diff(tc.want, SpecChangedMessage(diff, old, new, fields)); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSessionJobSpecChangedMessage: a session job's change reads the same way.
func TestSessionJobSpecChangedMessage(t *testing.T) {
	p2, p4 := int32(2), int32(4)
	old := flinkv1beta1.FlinkSessionJobSpec{DeploymentName: "session", Job: &flinkv1beta1.JobSpec{JarURI: "https://jars/job.jar", Parallelism: &p2}}
	new := *old.DeepCopy()
	new.Job.Parallelism = &p4
	diff, fields := DiffSessionJob(old, new)
	want := "UPGRADE change(s) detected (Diff: FlinkSessionJobSpec[job.parallelism : 2 -> 4]), starting reconciliation."
	if got := SessionJobSpecChangedMessage(diff, old, new, fields); got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}
