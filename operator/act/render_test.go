package act

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

func resourceFromYAML(t *testing.T, doc string) *flinkv1beta1.FlinkDeployment {
	t.Helper()
	d := &flinkv1beta1.FlinkDeployment{}
	if err := yaml.UnmarshalStrict([]byte(doc), d); err != nil {
		t.Fatal(err)
	}
	d.Namespace, d.UID = "ns", "uid-1"
	return d
}

const podTemplateExample = `
metadata: {name: example}
spec:
  mode: standalone
  image: flink:1.20
  flinkVersion: v1_20
  serviceAccount: flink
  flinkConfiguration:
    taskmanager.numberOfTaskSlots: 2
    state: {savepoints.dir: "file:///sp"}
  podTemplate:
    metadata:
      labels: {team: data}
    spec:
      containers:
        - name: flink-main-container
          volumeMounts: [{mountPath: /opt/flink/log, name: logs}]
        - name: fluentbit
          image: fluent/fluent-bit:1.9.6
      volumes: [{name: logs, emptyDir: {}}]
  jobManager:
    resource: {memory: 2048m, cpu: 0.5}
    podTemplate:
      spec:
        initContainers:
          - name: fetch
            image: busybox:1.35.0
  taskManager:
    resources:
      requests: {memory: 1Gi, cpu: "1"}
  job:
    jarURI: local:///opt/flink/job.jar
    entryClass: org.example.Job
    args: ["--in", "x"]
    parallelism: 5
    allowNonRestoredState: true
`

func TestRenderApplication(t *testing.T) {
	d := resourceFromYAML(t, podTemplateExample)
	objs, err := Render(Cluster{Resource: d, Spec: d.Spec, Generation: 3, JobID: "j1", RestorePath: "file:///sp/savepoint-1"})
	if err != nil {
		t.Fatal(err)
	}
	jm, tm := objs.JobManager, objs.TaskManager
	if jm.Name != "example" || tm.Name != "example-taskmanager" || objs.RESTService.Name != "example-rest" || objs.ConfigMap.Name != "flink-config-example" {
		t.Errorf("names %s %s %s %s", jm.Name, tm.Name, objs.RESTService.Name, objs.ConfigMap.Name)
	}
	if jm.Annotations[AnnotationGeneration] != "3" {
		t.Errorf("generation annotation %q", jm.Annotations[AnnotationGeneration])
	}
	if got := *tm.Spec.Replicas; got != 3 {
		t.Errorf("TaskManagers %d, want ceil(5/2)=3", got)
	}
	for _, o := range objs.All() {
		refs := o.GetOwnerReferences()
		if len(refs) != 1 || refs[0].Name != "example" || refs[0].Controller == nil || !*refs[0].Controller {
			t.Errorf("%s owner references %+v", o.GetName(), refs)
		}
		if o.GetLabels()[LabelApp] != "example" {
			t.Errorf("%s labels %v", o.GetName(), o.GetLabels())
		}
	}
	pod := jm.Spec.Template
	if pod.Labels["team"] != "data" || pod.Labels[LabelComponent] != ComponentJobManager {
		t.Errorf("JobManager pod labels %v", pod.Labels)
	}
	if len(pod.Spec.InitContainers) != 1 || pod.Spec.ServiceAccountName != "flink" {
		t.Errorf("init containers %d, service account %q", len(pod.Spec.InitContainers), pod.Spec.ServiceAccountName)
	}
	names := []string{}
	for _, c := range pod.Spec.Containers {
		names = append(names, c.Name)
	}
	if diff := cmp.Diff([]string{MainContainer, "fluentbit"}, names); diff != "" {
		t.Errorf("containers (-want +got):\n%s", diff)
	}
	main := pod.Spec.Containers[0]
	if main.Image != "flink:1.20" || strings.Join(main.Args, " ") != "standalone-job --job-classname org.example.Job --job-id j1 --in x" {
		t.Errorf("main container image %q args %q", main.Image, main.Args)
	}
	if len(main.VolumeMounts) != 2 || main.VolumeMounts[0].Name != "logs" {
		t.Errorf("the user's volume mount was lost: %+v", main.VolumeMounts)
	}
	if q := main.Resources.Requests[corev1.ResourceMemory]; q.Cmp(resource.MustParse("2048Mi")) != 0 {
		t.Errorf("memory %s, want 2048Mi from 2048m", q.String())
	}
	if q := main.Resources.Requests[corev1.ResourceCPU]; q.Cmp(resource.MustParse("500m")) != 0 {
		t.Errorf("cpu %s, want 500m", q.String())
	}
	if q := tm.Spec.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory]; q.Cmp(resource.MustParse("1Gi")) != 0 {
		t.Errorf("TaskManager resources not taken from resources: %v", q)
	}
	if tm.Spec.Template.Spec.Containers[0].Args[0] != "taskmanager" {
		t.Errorf("TaskManager args %v", tm.Spec.Template.Spec.Containers[0].Args)
	}
}

func TestEffectiveConfig(t *testing.T) {
	d := resourceFromYAML(t, podTemplateExample)
	objs, err := Render(Cluster{Resource: d, Spec: d.Spec, Generation: 1, JobID: "j1", RestorePath: "file:///sp/savepoint-1"})
	if err != nil {
		t.Fatal(err)
	}
	var conf map[string]string
	if err := yaml.Unmarshal([]byte(objs.ConfigMap.Data["config.yaml"]), &conf); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"kubernetes.cluster-id": "example", "kubernetes.namespace": "ns", "jobmanager.rpc.address": "example.ns",
		"rest.port": "8081", "parallelism.default": "5", "pipeline.jars": "local:///opt/flink/job.jar",
		"$internal.pipeline.job-id": "j1", "$internal.application.main": "org.example.Job",
		"$internal.application.program-args": "--in;x", "execution.savepoint.path": "file:///sp/savepoint-1",
		"execution.savepoint.ignore-unclaimed-state": "true", "taskmanager.numberOfTaskSlots": "2",
		"state.savepoints.dir": "file:///sp",
	}
	for k, v := range want {
		if conf[k] != v {
			t.Errorf("%s = %q, want %q", k, conf[k], v)
		}
	}
	d.Spec.FlinkVersion = "v1_18"
	old, _ := Render(Cluster{Resource: d, Spec: d.Spec, Generation: 1})
	if _, ok := old.ConfigMap.Data["flink-conf.yaml"]; !ok {
		t.Errorf("Flink 1.18 needs flink-conf.yaml, got %v", keys(old.ConfigMap.Data))
	}
	if _, ok := old.ConfigMap.Data["config.yaml"]; ok {
		t.Error("Flink 1.18 got config.yaml")
	}
}

func TestRenderSessionCluster(t *testing.T) {
	d := &flinkv1beta1.FlinkDeployment{
		ObjectMeta: metav1.ObjectMeta{Name: "session", Namespace: "ns"},
		Spec:       flinkv1beta1.FlinkDeploymentSpec{Image: "flink:1.20", FlinkVersion: "v1_20", Mode: flinkv1beta1.DeploymentModeStandalone},
	}
	objs, err := Render(Cluster{Resource: d, Spec: d.Spec, Generation: 1})
	if err != nil {
		t.Fatal(err)
	}
	if args := objs.JobManager.Spec.Template.Spec.Containers[0].Args; len(args) != 1 || args[0] != "jobmanager" {
		t.Errorf("session JobManager args %v", args)
	}
	if strings.Contains(objs.ConfigMap.Data["config.yaml"], "pipeline.jars") {
		t.Error("a session cluster got a job jar")
	}
}

func TestTaskManagerReplicas(t *testing.T) {
	p := func(n int32) *int32 { return &n }
	cases := map[string]struct {
		spec flinkv1beta1.FlinkDeploymentSpec
		conf map[string]string
		want int32
	}{
		"explicit replicas win":                 {spec: flinkv1beta1.FlinkDeploymentSpec{TaskManager: &flinkv1beta1.TaskManagerSpec{Replicas: p(7)}}, want: 7},
		"parallelism over slots, rounded up":    {spec: flinkv1beta1.FlinkDeploymentSpec{Job: &flinkv1beta1.JobSpec{Parallelism: p(5)}}, conf: map[string]string{"taskmanager.numberOfTaskSlots": "2"}, want: 3},
		"parallelism.default when job has none": {spec: flinkv1beta1.FlinkDeploymentSpec{}, conf: map[string]string{"parallelism.default": "4"}, want: 4},
		"at least one":                          {spec: flinkv1beta1.FlinkDeploymentSpec{}, want: 1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := TaskManagerReplicas(tc.spec, tc.conf); got != tc.want {
				t.Errorf("TaskManagerReplicas = %d, want %d", got, tc.want)
			}
		})
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Only the logging files of logConfiguration are rendered: a config.yaml key (refused by
// Validate) cannot replace the configuration with the job id and restore path, and the
// operator sets high-availability.cluster-id itself.
func TestRenderKeepsOperatorFiles(t *testing.T) {
	d := resourceFromYAML(t, podTemplateExample)
	d.Spec.LogConfiguration = map[string]string{"config.yaml": "hacked: true", "log4j-console.properties": "rootLogger.level = INFO"}
	d.Spec.FlinkConfiguration.Set("high-availability.type", "kubernetes")
	d.Spec.FlinkConfiguration.Set("high-availability.cluster-id", "someone-else")
	objs, err := Render(Cluster{Resource: d, Spec: d.Spec, Generation: 1, JobID: "j1", RestorePath: "file:///sp/savepoint-1"})
	if err != nil {
		t.Fatal(err)
	}
	conf := objs.ConfigMap.Data["config.yaml"]
	for _, want := range []string{"$internal.pipeline.job-id: j1", "execution.savepoint.path: file:///sp/savepoint-1", "high-availability.cluster-id: example"} {
		if !strings.Contains(conf, want) {
			t.Errorf("config.yaml lacks %q:\n%s", want, conf)
		}
	}
	if strings.Contains(conf, "hacked") || strings.Contains(conf, "someone-else") {
		t.Errorf("config.yaml was replaced or took the tenant's cluster id:\n%s", conf)
	}
	if objs.ConfigMap.Data["log4j-console.properties"] == "" {
		t.Error("the logging file was not rendered")
	}
}
