package harness

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
)

// A lagging Deployment informer shows the operator the Deployments of its first read in the
// window: one created since is missing from its reads and lists, one deleted since is still
// there; its reads past the cache and other kinds are current; after the window it catches up.
func TestInformerLag(t *testing.T) {
	w, err := NewWorld(1)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dep := func(name string) *appsv1.Deployment {
		d := &appsv1.Deployment{}
		d.Namespace, d.Name, d.Labels = w.Namespace, name, map[string]string{"app": "x", act.LabelManagedBy: act.ManagedBy}
		return d
	}
	if err := w.Client.Create(ctx, dep("old")); err != nil {
		t.Fatal(err)
	}
	if err := w.LagInformer("Deployment", time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := w.opClient.Get(ctx, client.ObjectKeyFromObject(dep("old")), &appsv1.Deployment{}); err != nil {
		t.Fatalf("first read in the window: %v", err)
	}
	if err := w.Client.Create(ctx, dep("new")); err != nil {
		t.Fatal(err)
	}
	if err := w.Client.Delete(ctx, dep("old")); err != nil {
		t.Fatal(err)
	}
	seen := func(c client.Reader) []string {
		var list appsv1.DeploymentList
		if err := c.List(ctx, &list, client.InNamespace(w.Namespace), client.MatchingLabels{"app": "x"}); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, d := range list.Items {
			names = append(names, d.Name)
		}
		return names
	}
	if got := seen(w.opClient); strings.Join(got, ",") != "old" {
		t.Errorf("lagging list = %v, want [old]", got)
	}
	if err := w.opClient.Get(ctx, client.ObjectKeyFromObject(dep("new")), &appsv1.Deployment{}); !apierrors.IsNotFound(err) {
		t.Errorf("lagging read of a Deployment created since: %v, want NotFound", err)
	}
	if got := seen(w.apiReader); strings.Join(got, ",") != "new" {
		t.Errorf("read past the cache = %v, want [new]", got)
	}
	w.Clock.Step(time.Minute)
	if got := seen(w.opClient); strings.Join(got, ",") != "new" {
		t.Errorf("after the window = %v, want [new]", got)
	}
	if err := w.LagInformer("Secret", time.Minute); err == nil {
		t.Error("a lagging Secret informer was accepted, want an error")
	}
}

// Invariant 7: with the Deployment informer lagging through the first deploy, the operator
// that confirms a missing Deployment past its cache raises no alarm; one that trusts its
// cache (no API reader) reports the JobManager Deployment missing, and the invariant fires.
func TestFalseMissingInvariant(t *testing.T) {
	for name, trustsCache := range map[string]bool{"reads past the cache": false, "trusts the cache": true} {
		t.Run(name, func(t *testing.T) {
			w, err := NewWorld(1)
			if err != nil {
				t.Fatal(err)
			}
			if trustsCache {
				w.apiReader = nil
				w.RestartOperator()
			}
			c := NewChecker(w)
			if err := w.LagInformer("Deployment", 2*time.Minute); err != nil {
				t.Fatal(err)
			}
			if err := w.Apply(savepointJob()); err != nil {
				t.Fatal(err)
			}
			violations := stepAndCheck(t, w, c, 90*time.Second, "job")
			fired := strings.Contains(strings.Join(violations, "\n"), "invariant 7")
			if fired != trustsCache {
				t.Errorf("invariant 7 fired: %v, want %v; violations:\n%s\ntrace:\n%s", fired, trustsCache, strings.Join(violations, "\n"), w.Trace)
			}
			if !trustsCache && len(violations) > 0 {
				t.Errorf("violations: %v", violations)
			}
			var jm appsv1.Deployment
			if err := w.Client.Get(context.Background(), client.ObjectKey{Namespace: w.Namespace, Name: act.JobManagerName("job")}, &jm); err != nil {
				t.Errorf("JobManager Deployment: %v", err)
			}
		})
	}
}

// A lagging Pod informer serves pod metadata, as the cache holds pods: a JobManager pod created
// since the window's first read is not listed until the window ends, and a typed pod read is
// refused, lagging or not.
func TestInformerLagOfPods(t *testing.T) {
	w, err := NewWorld(1)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pod := func(name string) *corev1.Pod {
		p := &corev1.Pod{}
		p.Namespace, p.Name, p.Labels = w.Namespace, name, act.JobManagerPods("x")
		return p
	}
	if err := w.Client.Create(ctx, pod("old")); err != nil {
		t.Fatal(err)
	}
	if err := w.LagInformer("Pod", time.Minute); err != nil {
		t.Fatal(err)
	}
	seen := func() []string {
		list := act.PodMetadataList()
		if err := w.opClient.List(ctx, list, client.InNamespace(w.Namespace), act.JobManagerPods("x")); err != nil {
			t.Fatalf("list pod metadata: %v", err)
		}
		var names []string
		for _, p := range list.Items {
			names = append(names, p.Name)
		}
		return names
	}
	if got := seen(); strings.Join(got, ",") != "old" {
		t.Errorf("first list in the window = %v, want [old]", got)
	}
	if err := w.Client.Create(ctx, pod("new")); err != nil {
		t.Fatal(err)
	}
	if got := seen(); strings.Join(got, ",") != "old" {
		t.Errorf("lagging list = %v, want [old]", got)
	}
	if err := w.opClient.Get(ctx, client.ObjectKeyFromObject(pod("old")), &corev1.Pod{}); err == nil {
		t.Error("a typed pod read was served while pods lag")
	}
	w.Clock.Step(time.Minute)
	if got := seen(); strings.Join(got, ",") != "new,old" {
		t.Errorf("after the window = %v, want [new old]", got)
	}
}
