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
	"sigs.k8s.io/yaml"

	"github.com/flinkop/flinkop/fakeflink/image"
	"github.com/flinkop/flinkop/harness/fixtures"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/render")

// TestProjectExamplesStartOnTheFlinkImage renders every FlinkDeployment of examples/ as the
// operator deploys it and starts its JobManager and TaskManager under the Flink image contract:
// an example whose memory, configuration file or job class a real Flink image would refuse
// fails here, not on a user's cluster.
func TestProjectExamplesStartOnTheFlinkImage(t *testing.T) {
	for _, doc := range fixtures.ProjectExamples(t, "FlinkDeployment") {
		t.Run(filepath.Base(doc.File)+"/"+doc.Name, func(t *testing.T) {
			objs := renderExample(t, doc)
			for _, dep := range []*appsv1.Deployment{objs.JobManager, objs.TaskManager} {
				if _, failure := startExample(objs, dep, nil); failure != nil {
					t.Errorf("%s does not start: %v\n%s", dep.Name, failure, strings.Join(failure.Log, "\n"))
				}
			}
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
			objs := renderExample(t, doc)
			extra := customImageJar(t, doc)
			got := map[string]any{}
			for _, dep := range []*appsv1.Deployment{objs.JobManager, objs.TaskManager} {
				main := mainContainer(dep)
				got[dep.Name+" args"] = main.Args
				got[dep.Name+" resources"] = main.Resources
				got[dep.Name+" pod"] = podOf(dep)
				if _, failure := startExample(objs, dep, extra); failure != nil {
					t.Errorf("%s does not start: %v\n%s", dep.Name, failure, strings.Join(failure.Log, "\n"))
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
			compareGolden(t, filepath.Join("testdata", "render", name+".yaml"), got)
		})
	}
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

// startExample starts one rendered Deployment's main container under the image contract.
func startExample(objs *act.Objects, dep *appsv1.Deployment, extra map[string]image.Jar) (*image.Process, *image.Failure) {
	main := mainContainer(dep)
	jars := DefaultJars()
	for k, v := range extra {
		jars[k] = v
	}
	return image.Start(image.Pod{Version: podVersion(main.Image, objs.ConfigMap.Data), Args: main.Args, ConfFiles: objs.ConfigMap.Data, Jars: jars})
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
