//go:build integration

package envtest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestInstallManifests renders the cluster-wide install the ways users install it (kubectl
// kustomize config/default, and the Helm chart with its default values), creates every object
// on a real kube-apiserver, and checks the operator Deployment's hardening and that the
// operator's ServiceAccount may do what it needs and nothing it does not.
func TestInstallManifests(t *testing.T) {
	for name, src := range map[string]installSource{
		"kustomize config/default": {kustomize: "default"},
		"helm chart":               {helm: true},
	} {
		t.Run(name, func(t *testing.T) { checkInstall(t, src.render(t)) })
	}
}

// installSource is one way of rendering an install: a kustomize folder of config/, or the
// Helm chart with helmArgs.
type installSource struct {
	kustomize string
	helm      bool
	helmArgs  []string
}

func (s installSource) render(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	if s.helm {
		return renderChart(t, s.helmArgs...)
	}
	return render(t, s.kustomize)
}

func checkInstall(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	env := start(t)
	ctx := context.Background()
	ns := &corev1.Namespace{}
	ns.Name = "flinkop-system"
	if err := env.Client.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if o.GetKind() == "CustomResourceDefinition" || o.GetKind() == "Namespace" {
			continue // Start installed the same CRDs
		}
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatalf("create %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	if len(objs) < 12 {
		t.Fatalf("the install renders %d objects; want the ServiceAccount, the roles and bindings and the Deployment", len(objs))
	}

	var dep appsv1.Deployment
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "flinkop-system", Name: "flinkop-manager"}, &dep); err != nil {
		t.Fatal(err)
	}
	pod := dep.Spec.Template.Spec
	c := pod.Containers[0]
	switch {
	case pod.SecurityContext == nil || pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot:
		t.Error("the operator pod may run as root")
	case c.SecurityContext == nil || c.SecurityContext.ReadOnlyRootFilesystem == nil || !*c.SecurityContext.ReadOnlyRootFilesystem:
		t.Error("the operator's root file system is writable")
	case c.LivenessProbe == nil || c.ReadinessProbe == nil || c.Resources.Requests.Cpu().IsZero():
		t.Error("the operator container lacks probes or resource requests")
	case c.ImagePullPolicy != corev1.PullIfNotPresent || !contains(c.Args, "--leader-elect"):
		t.Errorf("image pull policy %s, args %v", c.ImagePullPolicy, c.Args)
	}

	op := as(t, env.Config, "system:serviceaccount:flinkop-system:flinkop-manager")
	var fds flinkv1beta1.FlinkDeploymentList
	if err := op.List(ctx, &fds); err != nil {
		t.Errorf("the operator cannot list FlinkDeployments: %v", err)
	}
	var deps appsv1.DeploymentList
	if err := op.List(ctx, &deps); err != nil {
		t.Errorf("the operator cannot list Deployments: %v", err)
	}
	var secrets corev1.SecretList
	if err := op.List(ctx, &secrets); !apierrors.IsForbidden(err) {
		t.Errorf("listing Secrets as the operator: %v; want Forbidden (least privilege)", err)
	}
	var nodes corev1.NodeList
	if err := op.List(ctx, &nodes); !apierrors.IsForbidden(err) {
		t.Errorf("listing Nodes as the operator: %v; want Forbidden (least privilege)", err)
	}
	if err := op.List(ctx, &coordinationv1.LeaseList{}, client.InNamespace("default")); !apierrors.IsForbidden(err) {
		t.Errorf("listing Leases outside flinkop-system as the operator: %v; want Forbidden", err)
	}
	checkLeasesAndMetricsAuth(ctx, t, op)
	for _, o := range objs {
		if o.GetKind() == "ValidatingWebhookConfiguration" {
			checkWebhookReadsByName(ctx, t, op, objs)
			break
		}
	}
}

// TestFlinkServiceAccount installs config/flink, the ServiceAccount Flink's pods run under,
// and checks that it may keep HA ConfigMaps and, in native mode, TaskManager pods in its own
// namespace, read Deployments there, and do nothing else.
func TestFlinkServiceAccount(t *testing.T) {
	env := start(t)
	ctx := context.Background()
	for _, o := range render(t, "flink") {
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatalf("create %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	other := &corev1.Namespace{}
	other.Name = "elsewhere"
	if err := env.Client.Create(ctx, other); err != nil {
		t.Fatal(err)
	}
	flink := as(t, env.Config, "system:serviceaccount:default:flink")
	cm := &corev1.ConfigMap{}
	cm.Namespace, cm.Name, cm.Labels = "default", "app-cluster-config-map", map[string]string{"configmap-type": "high-availability"}
	if err := flink.Create(ctx, cm); err != nil {
		t.Errorf("Flink cannot create its HA ConfigMap: %v", err)
	}
	cm.Data = map[string]string{"k": "v"}
	if err := flink.Update(ctx, cm); err != nil {
		t.Errorf("Flink cannot update its HA ConfigMap: %v", err)
	}
	var cms corev1.ConfigMapList
	if err := flink.List(ctx, &cms, client.InNamespace("default")); err != nil {
		t.Errorf("Flink cannot list ConfigMaps: %v", err)
	}
	if err := flink.List(ctx, &cms, client.InNamespace("elsewhere")); !apierrors.IsForbidden(err) {
		t.Errorf("listing ConfigMaps of another namespace as Flink: %v; want Forbidden", err)
	}
	var secrets corev1.SecretList
	if err := flink.List(ctx, &secrets, client.InNamespace("default")); !apierrors.IsForbidden(err) {
		t.Errorf("listing Secrets as Flink: %v; want Forbidden (least privilege)", err)
	}
	if err := flink.Delete(ctx, cm); err != nil {
		t.Errorf("Flink cannot delete its HA ConfigMap: %v", err)
	}
	nativeResourceManagerRights(ctx, t, env, flink)
}

// nativeResourceManagerRights: in native mode Flink's JobManager reads its own Deployment and
// creates, lists and deletes its TaskManager pods, owned by that Deployment; it may not change
// the Deployment, nor touch pods of another namespace.
func nativeResourceManagerRights(ctx context.Context, t *testing.T, env *Env, flink client.Client) {
	t.Helper()
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "app"}, Spec: appsv1.DeploymentSpec{
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "app"}},
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "app"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "flink-main-container", Image: "flink:1.20"}}},
		},
	}}
	if err := env.Client.Create(ctx, dep); err != nil {
		t.Fatal(err)
	}
	if err := flink.Get(ctx, client.ObjectKeyFromObject(dep), dep); err != nil {
		t.Errorf("Flink cannot read its JobManager Deployment: %v", err)
	}
	dep.Labels = map[string]string{"x": "y"}
	if err := flink.Update(ctx, dep); !apierrors.IsForbidden(err) {
		t.Errorf("updating a Deployment as Flink: %v; want Forbidden", err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "default", Name: "app-taskmanager-1-1",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: dep.Name, UID: dep.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}},
		},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "flink-main-container", Image: "flink:1.20"}}},
	}
	if err := flink.Create(ctx, pod); err != nil {
		t.Errorf("Flink cannot create its TaskManager pod: %v", err)
	}
	var pods corev1.PodList
	if err := flink.List(ctx, &pods, client.InNamespace("default")); err != nil {
		t.Errorf("Flink cannot list its pods: %v", err)
	}
	if err := flink.List(ctx, &pods, client.InNamespace("elsewhere")); !apierrors.IsForbidden(err) {
		t.Errorf("listing pods of another namespace as Flink: %v; want Forbidden", err)
	}
	if err := flink.Delete(ctx, pod); err != nil {
		t.Errorf("Flink cannot delete its TaskManager pod: %v", err)
	}
}

// start starts a kube-apiserver for the test, stopped when it ends.
func start(t *testing.T) *Env {
	t.Helper()
	env, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	return env
}

// render runs `kubectl kustomize config/<name>` and decodes its objects.
func render(t *testing.T, name string) []*unstructured.Unstructured {
	t.Helper()
	dir := filepath.Join(fixtures.MustModuleRoot(t), "config", name)
	return decodeAll(t, run(t, "kubectl", "kustomize", dir))
}

// renderChart runs `helm template` on charts/flinkop (release flinkop in flinkop-system) with
// args, and decodes its objects. The helm binary is FLINKOP_HELM (make test-integration
// builds it), else helm on the PATH.
func renderChart(t *testing.T, args ...string) []*unstructured.Unstructured {
	t.Helper()
	bin := os.Getenv("FLINKOP_HELM")
	if bin == "" {
		bin = "helm"
	}
	chart := filepath.Join(fixtures.MustModuleRoot(t), "charts", "flinkop")
	return decodeAll(t, run(t, bin, append([]string{"template", "flinkop", chart, "--namespace", "flinkop-system"}, args...)...))
}

func run(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("%s %v: %v\n%s", name, args, err, ee.Stderr)
		}
		t.Fatalf("%s %v: %v (%s is needed, as for installing; make test-integration provides it)", name, args, err, name)
	}
	return out
}

func decodeAll(t *testing.T, out []byte) []*unstructured.Unstructured {
	t.Helper()
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(out), 4096)
	var objs []*unstructured.Unstructured
	for {
		o := &unstructured.Unstructured{}
		if err := dec.Decode(&o.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return objs
			}
			t.Fatalf("decode rendered manifests: %v", err)
		}
		if len(o.Object) > 0 {
			objs = append(objs, o)
		}
	}
}

// as is a client acting as user (impersonated).
func as(t *testing.T, cfg *rest.Config, user string) client.Client {
	t.Helper()
	imp := rest.CopyConfig(cfg)
	imp.Impersonate = rest.ImpersonationConfig{UserName: user}
	s, err := Scheme()
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(imp, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
