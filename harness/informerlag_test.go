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
	dep := func(name string) *appsv1.Deployment { return labelled(w, name) }
	if err := w.Client.Create(ctx, dep("old")); err != nil {
		t.Fatal(err)
	}
	if err := w.LagInformer("Deployment", time.Minute, 0); err != nil {
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
	if err := w.LagInformer("Secret", time.Minute, 0); err == nil {
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
			if err := w.LagInformer("Deployment", 2*time.Minute, 0); err != nil {
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
	if err := w.LagInformer("Pod", time.Minute, 0); err != nil {
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

// A trailing Deployment informer shows each of the operator's own writes a while after it was
// made and in the order made: two deletions in a row are first both unseen, then the first
// alone is seen (in some seeded worlds), never the second alone, then both; its list agrees
// with its reads, and its reads past the cache are current throughout.
func TestInformerTrail(t *testing.T) {
	halfSeen := 0
	for seed := int64(1); seed <= 10; seed++ {
		switch got := strings.Join(trailedDeletions(t, seed), " → "); got {
		case "jm,tm → tm → ":
			halfSeen++
		case "jm,tm → ":
		default:
			t.Errorf("seed %d: the trailing informer showed %q, want jm,tm → [tm →] nothing", seed, got)
		}
	}
	if halfSeen == 0 {
		t.Error("in no world was one deletion seen without the other")
	}
}

// trailedDeletions deletes Deployments jm and tm through the operator with its Deployment
// informer trailing, and returns what its lists showed of them, second by second, as it
// changed.
func trailedDeletions(t *testing.T, seed int64) []string {
	t.Helper()
	w, err := NewWorld(seed)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dep := func(name string) *appsv1.Deployment { return labelled(w, name) }
	for _, name := range []string{"jm", "tm"} {
		if err := w.Client.Create(ctx, dep(name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.LagInformer("Deployment", time.Minute, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"jm", "tm"} {
		if err := w.opClient.Delete(ctx, dep(name)); err != nil {
			t.Fatal(err)
		}
	}
	got := []string{listed(t, w.opClient, w.Namespace)}
	for range 12 {
		w.Clock.Step(time.Second)
		s := listed(t, w.opClient, w.Namespace)
		var reads []string
		for _, name := range []string{"jm", "tm"} {
			if w.opClient.Get(ctx, client.ObjectKeyFromObject(dep(name)), &appsv1.Deployment{}) == nil {
				reads = append(reads, name)
			}
		}
		if r := strings.Join(reads, ","); r != s {
			t.Errorf("seed %d: reads see %q, the list %q", seed, r, s)
		}
		if past := listed(t, w.apiReader, w.Namespace); past != "" {
			t.Errorf("seed %d: read past the cache = %q, want none", seed, past)
		}
		if s != got[len(got)-1] {
			got = append(got, s)
		}
	}
	return got
}

// listed names the Deployments labelled app=x that c lists in ns.
func listed(t *testing.T, c client.Reader, ns string) string {
	t.Helper()
	var list appsv1.DeploymentList
	if err := c.List(context.Background(), &list, client.InNamespace(ns), client.MatchingLabels{"app": "x"}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range list.Items {
		names = append(names, d.Name)
	}
	return strings.Join(names, ",")
}

// labelled is a Deployment named name in w's namespace, labelled app=x and as the operator's.
func labelled(w *World, name string) *appsv1.Deployment {
	d := &appsv1.Deployment{}
	d.Namespace, d.Name, d.Labels = w.Namespace, name, map[string]string{"app": "x", act.LabelManagedBy: act.ManagedBy}
	return d
}
