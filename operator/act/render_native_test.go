package act

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestRenderNative: without mode (Apache's default native) the operator renders what Flink's
// KubernetesClusterDescriptor creates: the JobManager started through kubernetes-jobmanager.sh
// with the deployment target, the TaskManager pod template as the file
// kubernetes.pod-template-file.taskmanager names, the options Flink's resource manager reads,
// and no TaskManager Deployment.
func TestRenderNative(t *testing.T) {
	d := resourceFromYAML(t, strings.Replace(podTemplateExample, "  mode: standalone\n", "", 1))
	objs, err := Render(Cluster{Resource: d, Spec: d.Spec, Generation: 1, JobID: "j1"})
	if err != nil {
		t.Fatal(err)
	}
	if objs.TaskManager != nil {
		t.Errorf("a native cluster got a TaskManager Deployment %s", objs.TaskManager.Name)
	}
	if len(objs.All()) != 4 {
		t.Errorf("All() = %d objects, want 4", len(objs.All()))
	}
	main := objs.JobManager.Spec.Template.Spec.Containers[0]
	if diff := cmp.Diff([]string{"bash", "-c", "kubernetes-jobmanager.sh kubernetes-application"}, main.Args); diff != "" {
		t.Errorf("JobManager args (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{EntryPath}, main.Command); diff != "" {
		t.Errorf("JobManager command (-want +got):\n%s", diff)
	}
	mounted := false
	for _, m := range main.VolumeMounts {
		mounted = mounted || (m.Name == PodTemplateVolume && m.MountPath == PodTemplateDir)
	}
	if !mounted {
		t.Errorf("the pod template file is not mounted at %s: %+v", PodTemplateDir, main.VolumeMounts)
	}
	var conf map[string]string
	if err := yaml.Unmarshal([]byte(objs.ConfigMap.Data["config.yaml"]), &conf); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"execution.target": "kubernetes-application", "kubernetes.container.image.ref": "flink:1.20",
		"kubernetes.service-account": "flink", "kubernetes.pod-template-file.taskmanager": PodTemplateDir + "/" + TaskManagerTemplateFile,
		"pipeline.jars": "local:///opt/flink/job.jar", "$internal.application.main": "org.example.Job",
		"$internal.pipeline.job-id": "j1", "kubernetes.cluster-id": "example",
	}
	for k, v := range want {
		if conf[k] != v {
			t.Errorf("%s = %q, want %q", k, conf[k], v)
		}
	}
	if _, ok := conf["pipeline.classpaths"]; ok {
		t.Error("pipeline.classpaths set: only the standalone entrypoint reads it")
	}
	var tmpl struct {
		Kind     string
		Metadata struct{ Labels map[string]string }
		Spec     struct{ Containers []struct{ Name string } }
	}
	if err := yaml.Unmarshal([]byte(objs.ConfigMap.Data[TaskManagerTemplateFile]), &tmpl); err != nil {
		t.Fatal(err)
	}
	if tmpl.Kind != "Pod" || tmpl.Metadata.Labels["team"] != "data" || len(tmpl.Spec.Containers) != 2 || tmpl.Spec.Containers[1].Name != "fluentbit" {
		t.Errorf("TaskManager pod template file = %+v, want the common template as a Pod", tmpl)
	}
	d.Spec.Job = nil
	session, err := Render(Cluster{Resource: d, Spec: d.Spec, Generation: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := session.JobManager.Spec.Template.Spec.Containers[0].Args[2]; got != "kubernetes-jobmanager.sh kubernetes-session" {
		t.Errorf("session JobManager script %q", got)
	}
	d.Spec.Mode = flinkv1beta1.DeploymentModeNative
	explicit, err := Render(Cluster{Resource: d, Spec: d.Spec, Generation: 1})
	if err != nil {
		t.Fatal(err)
	}
	if explicit.TaskManager != nil {
		t.Errorf("mode native: TaskManager Deployment %v", explicit.TaskManager.Name)
	}
}

// TestNativeTaskManagerTemplateCarriesOtherResources: the TaskManager's ephemeral storage goes
// into its pod template file, as Apache's applyResourceToPodTemplate puts it (Flink sets CPU
// and memory from the configuration).
func TestNativeTaskManagerTemplateCarriesOtherResources(t *testing.T) {
	d := resourceFromYAML(t, strings.Replace(podTemplateExample, "  mode: standalone\n", "", 1))
	d.Spec.TaskManager = &flinkv1beta1.TaskManagerSpec{Resource: flinkv1beta1.Resource{Memory: "2048m", EphemeralStorage: "5Gi"}}
	objs, err := Render(Cluster{Resource: d, Spec: d.Spec, Generation: 1, JobID: "j1"})
	if err != nil {
		t.Fatal(err)
	}
	var tmpl struct {
		Spec struct {
			Containers []struct {
				Name      string
				Resources struct{ Requests, Limits map[string]string }
			}
		}
	}
	if err := yaml.Unmarshal([]byte(objs.ConfigMap.Data[TaskManagerTemplateFile]), &tmpl); err != nil {
		t.Fatal(err)
	}
	main := tmpl.Spec.Containers[0]
	if main.Name != MainContainer || main.Resources.Requests["ephemeral-storage"] != "5Gi" || main.Resources.Requests["memory"] != "" {
		t.Errorf("main container of the template %+v, want ephemeral storage only", main)
	}
}
