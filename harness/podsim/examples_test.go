package podsim

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/flinkop/flinkop/fakeflink/image"
	"github.com/flinkop/flinkop/fakeflink/kuberm"
	"github.com/flinkop/flinkop/harness/fixtures"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/render")

// TestProjectExamplesStartOnTheFlinkImage renders every FlinkDeployment of examples/ as the
// operator deploys it, compares it with its golden file (testdata/render/project-*), and
// starts its JobManager and TaskManager under the Flink image contract: an example whose
// memory, configuration file or job class a real Flink image would refuse fails here, not on a
// user's cluster.
func TestProjectExamplesStartOnTheFlinkImage(t *testing.T) {
	for _, doc := range fixtures.ProjectExamples(t, "FlinkDeployment") {
		t.Run(filepath.Base(doc.File)+"/"+doc.Name, func(t *testing.T) {
			name := fmt.Sprintf("project-%s-%d-%s", strings.TrimSuffix(filepath.Base(doc.File), ".yaml"), doc.Index, doc.Name)
			compareGolden(t, filepath.Join("testdata", "render", name+".yaml"), renderedPods(t, renderExample(t, doc), nil))
		})
	}
}

// TestApacheExamplesRenderAsGolden renders every FlinkDeployment among the Apache operator's
// examples, compares what the pods receive (configuration files, container arguments and resources) with the
// golden files of testdata/render (go test -run TestApacheExamples -update rewrites them), and
// starts each pod under the Flink image contract. An example on a custom image gets the jar its
// image (or init container) provides.
func TestApacheExamplesRenderAsGolden(t *testing.T) {
	dir, docs := fixtures.ApacheExamples(t, "FlinkDeployment")
	for _, doc := range docs {
		rel, _ := filepath.Rel(dir, doc.File)
		name := fmt.Sprintf("%s-%d-%s", strings.NewReplacer("/", "_", ".yaml", "").Replace(rel), doc.Index, doc.Name)
		t.Run(name, func(t *testing.T) {
			compareGolden(t, filepath.Join("testdata", "render", name+".yaml"), renderedPods(t, renderExample(t, doc), customImageJar(t, doc)))
		})
	}
}

// renderedPods is what a rendered example's pods receive (configuration files, container
// arguments and resources, the pods), for its golden file; a pod that does not start under
// the image contract fails t.
func renderedPods(t *testing.T, objs *act.Objects, extra map[string]image.Jar) map[string]any {
	t.Helper()
	got := map[string]any{}
	for _, p := range examplePods(t, objs, extra) {
		got[p.name+" args"] = p.main.Args
		got[p.name+" resources"] = p.main.Resources
		got[p.name+" pod"] = p.pod
		if p.failure != nil {
			t.Errorf("%s does not start: %v\n%s", p.name, p.failure, strings.Join(p.failure.Log, "\n"))
		}
	}
	files := map[string]string{}
	for k, v := range objs.ConfigMap.Data {
		if k == image.Log4jConsole || k == image.LogbackConsole {
			v = fmt.Sprintf("(%d lines)", strings.Count(v, "\n"))
		}
		files[k] = v
	}
	got["configmap"] = files
	for _, svc := range []*corev1.Service{objs.RESTService, objs.InternalService} {
		got[svc.Name+" service"] = map[string]any{"annotations": svc.Annotations, "type": svc.Spec.Type, "clusterIP": svc.Spec.ClusterIP}
	}
	return got
}

// renderExample decodes a FlinkDeployment as the API server would, checks that the operator
// accepts it, and renders generation 1 of it.
func renderExample(t *testing.T, doc fixtures.Document) *act.Objects {
	t.Helper()
	d := &flinkv1beta1.FlinkDeployment{}
	if err := fixtures.DecodeStrict(doc.YAML, d); err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	if d.Namespace == "" {
		d.Namespace = "default"
	}
	d.UID = "00000000-0000-0000-0000-000000000001"
	if errs := d.Validate(); len(errs) > 0 {
		t.Fatalf("%s is refused: %v", doc, errs.ToAggregate())
	}
	c := act.Cluster{Resource: d, Spec: d.Spec, Generation: 1}
	if d.Spec.Job != nil {
		c.JobID = decide.JobIDFor(string(d.UID), 1, "")
	}
	objs, err := act.Render(c)
	if err != nil {
		t.Fatalf("%s: render: %v", doc, err)
	}
	return objs
}

// examplePod is one pod of a rendered example: the JobManager's and a TaskManager's, of the
// TaskManager Deployment (standalone) or as fakeflink's native resource manager makes it from
// the started JobManager's configuration and the TaskManager pod template file (native).
type examplePod struct {
	name    string
	main    corev1.Container
	pod     map[string]any // what the pod gets besides main's arguments and resources
	failure *image.Failure // how its container fails to start under the image contract
}

func examplePods(t *testing.T, objs *act.Objects, extra map[string]image.Jar) []examplePod {
	t.Helper()
	jars := DefaultJars()
	for k, v := range extra {
		jars[k] = v
	}
	start := func(main corev1.Container) (*image.Process, *image.Failure) {
		return image.Start(image.Pod{Version: podVersion(main.Image, objs.ConfigMap.Data), Args: main.Args, ConfFiles: objs.ConfigMap.Data, Jars: jars})
	}
	jmMain := mainContainer(objs.JobManager)
	proc, failure := start(jmMain)
	out := []examplePod{{name: objs.JobManager.Name, main: jmMain, pod: podOf(objs.JobManager), failure: failure}}
	if objs.TaskManager != nil {
		tmMain := mainContainer(objs.TaskManager)
		_, failure := start(tmMain)
		return append(out, examplePod{name: objs.TaskManager.Name, main: tmMain, pod: podOf(objs.TaskManager), failure: failure})
	}
	if proc == nil {
		return out
	}
	tmpl, err := kuberm.ParseTemplate(objs.ConfigMap.Data[kuberm.TaskManagerTemplateFile])
	if err != nil {
		t.Fatal(err)
	}
	name := kuberm.PodName(objs.JobManager.Name, 1, 1)
	pod, err := kuberm.TaskManagerPod(proc.Config, tmpl, name, metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: objs.JobManager.Name})
	if err != nil {
		t.Fatalf("TaskManager pod: %v", err)
	}
	tmMain := mainContainerOf(&pod.Spec)
	_, failure = start(tmMain)
	spec := pod.Spec.DeepCopy()
	for i := range spec.Containers {
		if spec.Containers[i].Name == kuberm.MainContainer {
			spec.Containers[i].Args, spec.Containers[i].Resources = nil, corev1.ResourceRequirements{}
		}
	}
	return append(out, examplePod{name: name, main: tmMain, failure: failure, pod: map[string]any{
		"labels": pod.Labels, "annotations": pod.Annotations, "owner": pod.OwnerReferences, "spec": spec,
	}})
}

// customImageJar is the jar an example's own image or init container puts at its jarURI,
// holding its entry class (or, when the example names none, a manifest Main-Class); an
// example on the official image gets none.
func customImageJar(t *testing.T, doc fixtures.Document) map[string]image.Jar {
	t.Helper()
	d := &flinkv1beta1.FlinkDeployment{}
	if err := fixtures.DecodeStrict(doc.YAML, d); err != nil {
		t.Fatal(err)
	}
	if d.Spec.Job == nil {
		return nil
	}
	path, ok := strings.CutPrefix(d.Spec.Job.JarURI, "local://")
	if !ok || strings.HasPrefix(path, image.FlinkHome+"/examples/") {
		return nil
	}
	class := d.Spec.Job.EntryClass
	if class == "" {
		class = "org.example.CustomImageJob"
	}
	return map[string]image.Jar{path: {MainClass: class}}
}

// compareGolden compares got, as YAML, with a golden file, or rewrites it under -update.
func compareGolden(t *testing.T, path string, got any) {
	t.Helper()
	data, err := yaml.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), string(data)); diff != "" {
		t.Errorf("rendering of %s changed (-golden +got); run with -update if intended:\n%s", path, diff)
	}
}

// podOf is what a Deployment's pods get besides the main container's arguments and resources
// (kept apart above): the template's labels and annotations and its spec, the main
// container's image, environment and mounts, the Deployment's own labels and annotations.
func podOf(dep *appsv1.Deployment) map[string]any {
	tmpl := dep.Spec.Template.DeepCopy()
	for i := range tmpl.Spec.Containers {
		if tmpl.Spec.Containers[i].Name == act.MainContainer {
			tmpl.Spec.Containers[i].Args, tmpl.Spec.Containers[i].Resources = nil, corev1.ResourceRequirements{}
		}
	}
	return map[string]any{"deployment labels": dep.Labels, "deployment annotations": dep.Annotations, "template": tmpl}
}
