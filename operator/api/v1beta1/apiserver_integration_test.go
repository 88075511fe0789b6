//go:build integration

package v1beta1_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/harness/envtest"
	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// env is the API server the tests of this file share.
var env *envtest.Env

func TestMain(m *testing.M) {
	var err error
	env, err = envtest.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stop envtest:", err)
	}
	os.Exit(code)
}

// strict is a client that rejects unknown fields, as kubectl does by default.
func strict() client.Client {
	return client.WithFieldValidation(env.Client, metav1.FieldValidationStrict)
}

// nsCounter gives every test object its own namespace, so names never collide.
var nsCounter int

func freshNamespace(t *testing.T) string {
	t.Helper()
	nsCounter++
	name := fmt.Sprintf("t%d", nsCounter)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := env.Client.Create(context.Background(), ns); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	return name
}

func toUnstructured(t *testing.T, doc fixtures.Document, ns string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(doc.YAML, &u.Object); err != nil {
		t.Fatalf("parse: %v", err)
	}
	u.SetNamespace(ns)
	return u
}

// checkStoredUnchanged creates doc and reads it back: the API server must accept it and keep
// every spec field as written (nothing pruned).
func checkStoredUnchanged(t *testing.T, doc fixtures.Document) {
	t.Helper()
	ctx := context.Background()
	obj := toUnstructured(t, doc, freshNamespace(t))
	want := obj.DeepCopy().Object["spec"]
	if err := strict().Create(ctx, obj); err != nil {
		t.Fatalf("the API server rejected it: %v", err)
	}
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(obj.GroupVersionKind())
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got.Object["spec"]); diff != "" {
		t.Errorf("the API server changed the spec (-written +stored):\n%s", diff)
	}
}

// TestApacheExamplesAcceptedByAPIServer applies every Apache example FlinkDeployment,
// FlinkSessionJob, FlinkStateSnapshot and FlinkBlueGreenDeployment to a real kube-apiserver with our CRDs.
func TestApacheExamplesAcceptedByAPIServer(t *testing.T) {
	dir, docs := fixtures.ApacheExamples(t, "FlinkDeployment", "FlinkSessionJob", "FlinkStateSnapshot", "FlinkBlueGreenDeployment")
	for _, doc := range docs {
		rel, _ := filepath.Rel(dir, doc.File)
		t.Run(filepath.ToSlash(rel)+"/"+doc.Name, func(t *testing.T) { checkStoredUnchanged(t, doc) })
	}
}

// TestProjectExamplesAcceptedByAPIServer does the same for examples/.
func TestProjectExamplesAcceptedByAPIServer(t *testing.T) {
	for _, doc := range fixtures.ProjectExamples(t, "FlinkDeployment", "FlinkSessionJob", "FlinkStateSnapshot", "FlinkBlueGreenDeployment") {
		t.Run(filepath.Base(doc.File)+"/"+doc.Name, func(t *testing.T) { checkStoredUnchanged(t, doc) })
	}
}

// TestInvalidExamplesRejectedByAPIServer checks the examples/invalid files the CRD schema and
// CEL rules must reject, on create or on update.
func TestInvalidExamplesRejectedByAPIServer(t *testing.T) {
	for layer, update := range map[string]bool{"apiserver": false, "apiserver-update": true} {
		for file, docs := range invalidExamples(t, layer) {
			t.Run(file, func(t *testing.T) {
				ctx := context.Background()
				ns := freshNamespace(t)
				obj := toUnstructured(t, docs[0], ns)
				err := strict().Create(ctx, obj)
				if update {
					if err != nil {
						t.Fatalf("create of the first document failed: %v", err)
					}
					if len(docs) != 2 {
						t.Fatalf("an update example needs two documents, has %d", len(docs))
					}
					next := toUnstructured(t, docs[1], ns)
					next.SetResourceVersion(obj.GetResourceVersion())
					err = strict().Update(ctx, next)
				}
				if err == nil {
					t.Fatal("the API server accepted it")
				}
				if want := docs[0].Directive("expect"); !strings.Contains(err.Error(), want) {
					t.Errorf("error %q\nwant it to contain %q", err, want)
				}
			})
		}
	}
}

// TestScaleSubresource checks that `kubectl scale flinkdep` sets spec.taskManager.replicas.
func TestScaleSubresource(t *testing.T) {
	ctx := context.Background()
	ns := freshNamespace(t)
	two := int32(2)
	d := &flinkv1beta1.FlinkDeployment{
		ObjectMeta: metav1.ObjectMeta{Name: "scaled", Namespace: ns},
		Spec: flinkv1beta1.FlinkDeploymentSpec{
			Image: "flink:1.20", FlinkVersion: "v1_20",
			TaskManager: &flinkv1beta1.TaskManagerSpec{Replicas: &two},
			Job:         &flinkv1beta1.JobSpec{JarURI: "local:///job.jar"},
		},
	}
	if err := env.Client.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	d.Status.TaskManager = &flinkv1beta1.TaskManagerInfo{LabelSelector: "app=scaled,component=taskmanager", Replicas: 2}
	if err := env.Client.Status().Update(ctx, d); err != nil {
		t.Fatalf("status update: %v", err)
	}
	scale := &autoscalingv1.Scale{}
	if err := env.Client.SubResource("scale").Get(ctx, d, scale); err != nil {
		t.Fatalf("get scale: %v", err)
	}
	if scale.Spec.Replicas != 2 || scale.Status.Selector != "app=scaled,component=taskmanager" {
		t.Fatalf("scale = %+v, want 2 replicas and the TaskManager selector", scale)
	}
	scale.Spec.Replicas = 5
	if err := env.Client.SubResource("scale").Update(ctx, d, client.WithSubResourceBody(scale)); err != nil {
		t.Fatalf("update scale: %v", err)
	}
	got := &flinkv1beta1.FlinkDeployment{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(d), got); err != nil {
		t.Fatal(err)
	}
	if r := got.Spec.TaskManager.Replicas; r == nil || *r != 5 {
		t.Errorf("spec.taskManager.replicas = %v after scaling to 5", r)
	}
}

// TestStatusSubresource checks that status is written only through the status subresource.
func TestStatusSubresource(t *testing.T) {
	ctx := context.Background()
	j := &flinkv1beta1.FlinkSessionJob{
		ObjectMeta: metav1.ObjectMeta{Name: "job", Namespace: freshNamespace(t)},
		Spec: flinkv1beta1.FlinkSessionJobSpec{
			DeploymentName: "session", Job: &flinkv1beta1.JobSpec{JarURI: "https://example.com/j.jar"},
		},
	}
	if err := env.Client.Create(ctx, j); err != nil {
		t.Fatal(err)
	}
	j.Status.Error = "written through the main resource"
	if err := env.Client.Update(ctx, j); err != nil {
		t.Fatal(err)
	}
	got := &flinkv1beta1.FlinkSessionJob{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(j), got); err != nil {
		t.Fatal(err)
	}
	if got.Status.Error != "" {
		t.Errorf("status.error = %q: the main resource must not write status", got.Status.Error)
	}
}
