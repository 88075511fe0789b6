//go:build integration

package envtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestSandbox does what the README tells a newcomer: start the sandbox, use its kubeconfig to
// apply examples/basic.yaml and examples/session-cluster.yaml, and watch the FlinkDeployment
// and the FlinkSessionJob reach RUNNING (the sandbox runs every controller the operator runs);
// then stop it.
func TestSandbox(t *testing.T) {
	env := start(t)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() {
		stopped <- env.RunSandbox(ctx, 200*time.Millisecond, SandboxOptions{}, func(err error) { t.Logf("pod simulator: %v", err) })
	}()

	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := env.WriteKubeconfig(kubeconfig); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	root, err := fixtures.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "examples", "basic.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var d flinkv1beta1.FlinkDeployment
	if err := yaml.UnmarshalStrict(data, &d); err != nil {
		t.Fatal(err)
	}
	if d.Namespace == "" {
		d.Namespace = "default"
	}
	if err := c.Create(ctx, &d); err != nil {
		t.Fatal(err)
	}
	session, job := sessionExample(t, root)
	for _, obj := range []client.Object{session, job} {
		if err := c.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 90*time.Second, true, func(ctx context.Context) (bool, error) {
		var got flinkv1beta1.FlinkDeployment
		var gotJob flinkv1beta1.FlinkSessionJob
		found := c.Get(ctx, client.ObjectKeyFromObject(&d), &got) == nil && c.Get(ctx, client.ObjectKeyFromObject(job), &gotJob) == nil // not yet visible: poll on
		return found && got.Status.JobStatus.State == flinkv1beta1.JobStatusRunning && gotJob.Status.JobStatus.State == flinkv1beta1.JobStatusRunning, nil
	})
	if err != nil {
		var got flinkv1beta1.FlinkDeployment
		var gotJob flinkv1beta1.FlinkSessionJob
		_ = c.Get(context.Background(), client.ObjectKeyFromObject(&d), &got)
		_ = c.Get(context.Background(), client.ObjectKeyFromObject(job), &gotJob)
		t.Fatalf("the examples never reached RUNNING in the sandbox: %v; deployment %+v; session job %+v", err, got.Status, gotJob.Status)
	}
	cancel()
	select {
	case err := <-stopped:
		if err != nil {
			t.Errorf("sandbox stopped with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Error("the sandbox did not stop after its context ended")
	}
}

// sessionExample reads examples/session-cluster.yaml: its session cluster and its session job,
// in namespace default.
func sessionExample(t *testing.T, root string) (*flinkv1beta1.FlinkDeployment, *flinkv1beta1.FlinkSessionJob) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "examples", "session-cluster.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(data), "\n---\n")
	if len(docs) != 2 {
		t.Fatalf("examples/session-cluster.yaml has %d documents, want 2", len(docs))
	}
	session, job := &flinkv1beta1.FlinkDeployment{}, &flinkv1beta1.FlinkSessionJob{}
	if err := yaml.UnmarshalStrict([]byte(docs[0]), session); err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict([]byte(docs[1]), job); err != nil {
		t.Fatal(err)
	}
	session.Namespace, job.Namespace = "default", "default"
	return session, job
}
