//go:build integration

package envtest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/webhook"
)

// TestWebhookOnTheAPIServer installs config/webhook on a real kube-apiserver, with the
// operator's webhook server behind it: an invalid FlinkDeployment is refused at create with
// its field path, a valid one is stored, a session job is labelled with its cluster by the
// mutating webhook; and once the webhook is down, failurePolicy Ignore
// lets an apply through (the reconciler refuses it then, in status.error).
func TestWebhookOnTheAPIServer(t *testing.T) {
	env, err := Start(WithWebhooks())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	srv := crwebhook.NewServer(crwebhook.Options{
		Host: env.Webhook.LocalServingHost, Port: env.Webhook.LocalServingPort, CertDir: env.Webhook.LocalServingCertDir,
	})
	webhook.Register(srv, env.Scheme, nil)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	defer stop()

	create := func(d *flinkv1beta1.FlinkDeployment) error { return env.Client.Create(context.Background(), d) }
	// The server starts in the background: with Ignore, creates pass until it answers.
	deadline := time.Now().Add(30 * time.Second)
	var refused error
	for i := 0; refused == nil; i++ {
		if time.Now().After(deadline) {
			t.Fatal("the webhook never refused an invalid FlinkDeployment")
		}
		refused = create(fixtures.InvalidDeployment("default", fmt.Sprintf("bad-%d", i)))
		time.Sleep(200 * time.Millisecond)
	}
	if !strings.Contains(refused.Error(), "spec.job.jarURI") || !strings.Contains(refused.Error(), "admission webhook") {
		t.Errorf("refusal %q does not name the webhook and the field", refused)
	}
	if err := create(fixtures.Deployment("default", "good")); err != nil {
		t.Errorf("a valid FlinkDeployment was refused: %v", err)
	}
	j := fixtures.SessionJob("default", "job", "good")
	if err := env.Client.Create(context.Background(), j); err != nil {
		t.Fatalf("a valid FlinkSessionJob was refused: %v", err)
	}
	if got := j.Labels[flinkv1beta1.LabelTargetSession]; got != "good" {
		t.Errorf("the stored session job's %s label is %q, want its cluster (the mutating webhook)", flinkv1beta1.LabelTargetSession, got)
	}

	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := create(fixtures.InvalidDeployment("default", "while-down")); err != nil {
		t.Errorf("with the webhook down an apply was refused (failurePolicy must be Ignore): %v", err)
	}
}
