package harness

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/flink"
)

// sessionWorld runs a session cluster and a session job with jarURI in a fresh world, with the
// operator's jar fetcher replaced by fetcher's when it is not nil.
func sessionWorld(t *testing.T, jarURI string, fetcher func(w *World) *flink.JarFetcher) (*World, *Checker) {
	t.Helper()
	w, err := NewWorld(5)
	if err != nil {
		t.Fatal(err)
	}
	if fetcher != nil {
		w.SetJarFetcher(fetcher(w))
	}
	c := NewChecker(w)
	c.WatchSessionCluster("sess")
	d := savepointJob()
	d.Name, d.Spec.Job = "sess", nil
	if err := w.Apply(d); err != nil {
		t.Fatal(err)
	}
	p := int32(1)
	j := &flinkv1beta1.FlinkSessionJob{Spec: flinkv1beta1.FlinkSessionJobSpec{
		DeploymentName: "sess",
		Job:            &flinkv1beta1.JobSpec{JarURI: jarURI, Parallelism: &p, UpgradeMode: flinkv1beta1.UpgradeModeStateless},
	}}
	j.Name = "etl"
	if err := w.ApplySessionJob(j); err != nil {
		t.Fatal(err)
	}
	return w, c
}

// violations steps the world for d and collects every violation.
func violations(t *testing.T, w *World, c *Checker, d time.Duration) []string {
	t.Helper()
	var out []string
	for end := w.Now().Add(d); w.Now().Before(end); {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
		out = append(out, c.Check("sess")...)
	}
	return out
}

// TestCheckerCatchesBoundaryBreach: a jar URL whose name resolves to the metadata address is
// refused by the operator's fetcher; a broken fetcher that allows every address reaches it,
// uploads the secret, and the checker reports both.
func TestCheckerCatchesBoundaryBreach(t *testing.T) {
	const uri = "https://metadata.google.internal/latest/x.jar"
	w, c := sessionWorld(t, uri, nil)
	if v := violations(t, w, c, time.Minute); len(v) > 0 {
		t.Fatalf("the operator's own fetcher left the boundary: %v", v)
	}
	if j, _ := w.GetSessionJob("etl"); !strings.Contains(j.Status.Error, "refused by the jar fetch policy") {
		t.Errorf("status.error = %q, want the refusal", j.Status.Error)
	}
	broken := func(w *World) *flink.JarFetcher {
		f := w.Boundary.Fetcher()
		f.Policy.AllowedCIDRs = []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("::/0")}
		return f
	}
	w, c = sessionWorld(t, uri, broken)
	v := strings.Join(violations(t, w, c, time.Minute), "\n")
	if !strings.Contains(v, "outside the allowed addresses") || !strings.Contains(v, "none of the world's jars") {
		t.Errorf("violations %q, want the reached address and the uploaded secret", v)
	}
}

// TestCheckerCatchesForeignWrite: an object registered as another tenant's must not change.
func TestCheckerCatchesForeignWrite(t *testing.T) {
	w, c := checkedWorld(t, 6)
	cm := &corev1.ConfigMap{Data: map[string]string{"k": "v"}}
	cm.Name = "theirs"
	if err := c.Foreign(cm); err != nil {
		t.Fatal(err)
	}
	if v := c.Check(); len(v) > 0 {
		t.Fatalf("violations before any write: %v", v)
	}
	cm.Data["k"] = "changed"
	if err := w.Client.Update(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	if v := c.Check(); len(v) != 1 || !strings.Contains(v[0], "foreign *v1.ConfigMap theirs was written") {
		t.Errorf("violations %v, want the foreign write", v)
	}
}

// TestSpecRenderedCatchesTampering: a running deployment's rendered configuration and
// resources match its spec; a tampered ConfigMap is reported.
func TestSpecRenderedCatchesTampering(t *testing.T) {
	w, c := checkedWorld(t, 7)
	d := savepointJob()
	cpu := 1.5
	d.Spec.TaskManager = &flinkv1beta1.TaskManagerSpec{Resource: flinkv1beta1.Resource{Memory: "2048m", CPU: &cpu}}
	d.Spec.LogConfiguration = map[string]string{"log4j-console.properties": "rootLogger.level = INFO"}
	_ = w.Apply(d)
	stepUntil(t, w, c, "running", runningGen(1))
	cur, _ := w.Get("job")
	if v := c.SpecRendered(cur); len(v) > 0 {
		t.Fatalf("a running spec differs from what was rendered: %v", v)
	}
	var cm corev1.ConfigMap
	if err := w.Client.Get(context.Background(), keyOf(w, "flink-config-job"), &cm); err != nil {
		t.Fatal(err)
	}
	cm.Data["config.yaml"] = strings.Replace(cm.Data["config.yaml"], "state.savepoints.dir: file:///data/sp", "state.savepoints.dir: file:///elsewhere", 1)
	delete(cm.Data, "log4j-console.properties")
	if err := w.Client.Update(context.Background(), &cm); err != nil {
		t.Fatal(err)
	}
	v := strings.Join(c.SpecRendered(cur), "\n")
	if !strings.Contains(v, "state.savepoints.dir") || !strings.Contains(v, "log4j-console.properties") {
		t.Errorf("SpecRendered = %q, want the tampered key and the missing logging file", v)
	}
}

func keyOf(w *World, name string) client.ObjectKey {
	return client.ObjectKey{Namespace: w.Namespace, Name: name}
}

// checkedWorld is a fresh world with its checker.
func checkedWorld(t *testing.T, seed int64) (*World, *Checker) {
	t.Helper()
	w, err := NewWorld(seed)
	if err != nil {
		t.Fatal(err)
	}
	return w, NewChecker(w)
}
