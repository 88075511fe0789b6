//go:build e2e

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestWebhookRefusesABadSpecAtApply applies, with kubectl as a user does, a FlinkDeployment
// without its jar: the chart's webhook, with the certificate the operator made for itself
// (its CA injected into the webhook configuration, its Secret mounted by the kubelet), refuses
// it and names the field. Until the certificate is in place the API server ignores the
// webhook (failurePolicy Ignore): such an apply is deleted and tried again. Then the mutating
// webhook labels a session job with its cluster.
func TestWebhookRefusesABadSpecAtApply(t *testing.T) {
	d := fakeflinkHA(t, "e2e-webhook", flinkv1beta1.UpgradeModeStateless)
	d.Name, d.Namespace = "e2e-webhook", jobNS
	d.Spec.Job.JarURI = ""
	data, err := yaml.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for {
		cmd := exec.Command("kubectl", "--kubeconfig", env.kubeconfig, "apply", "-f", file)
		out, err := cmd.CombinedOutput()
		if err != nil {
			msg := string(out)
			// kubectl words the webhook's Invalid answer as the API server's own validation;
			// the message is the operator's (the CRD schema does not require a jar).
			if !strings.Contains(msg, "spec.job.jarURI") || !strings.Contains(msg, "an application job needs its jar") {
				t.Fatalf("kubectl apply failed, but not by the webhook naming the field: %s", msg)
			}
			step("%s: refused by the webhook after %s: %s", d.Name, time.Since(start).Round(time.Second), strings.TrimSpace(msg))
			checkSessionJobLabelled(t)
			return
		}
		// Stored while the webhook is not serving yet: remove it and try again.
		if _, err := kubectl(context.Background(), "delete", "-n", jobNS, "flinkdeployment", d.Name, "--wait=true", "--timeout=60s"); err != nil {
			t.Fatal(err)
		}
		if time.Since(start) > 4*time.Minute {
			t.Fatal("the webhook did not refuse an invalid FlinkDeployment within 4 minutes of the install")
		}
		time.Sleep(5 * time.Second)
	}
}

// TestWebhookDownTheOperatorStillRefuses scales the operator to zero, so nothing serves the
// webhook: failurePolicy Ignore lets an invalid FlinkDeployment be stored (with Fail every
// apply of the four kinds would fail until the operator is back). The operator, back, refuses
// it instead: status.error names the field, a Warning Event says so, and nothing is deployed.
func TestWebhookDownTheOperatorStillRefuses(t *testing.T) {
	ctx := context.Background()
	scale := func(replicas string) {
		t.Helper()
		if _, err := kubectl(ctx, "-n", operatorNS, "scale", "deployment/flinkop-manager", "--replicas="+replicas); err != nil {
			t.Fatal(err)
		}
	}
	scale("0")
	t.Cleanup(func() {
		scale("1")
		if _, err := kubectl(ctx, "-n", operatorNS, "rollout", "status", "deployment/flinkop-manager", "--timeout=3m"); err != nil {
			t.Error(err)
		}
	})
	if _, err := kubectl(ctx, "-n", operatorNS, "wait", "--for=delete", "pod", "-l", "app.kubernetes.io/component=manager", "--timeout=2m"); err != nil {
		t.Fatal(err)
	}
	d := fakeflinkHA(t, "e2e-webhook-down", flinkv1beta1.UpgradeModeStateless)
	d.Name, d.Namespace = "e2e-webhook-down", jobNS
	d.Spec.Job.JarURI = ""
	if err := env.client.Create(ctx, d); err != nil {
		t.Fatalf("with the webhook down an invalid spec was refused (failurePolicy must be Ignore): %v", err)
	}
	t.Cleanup(func() {
		_, _ = kubectl(ctx, "delete", "-n", jobNS, "flinkdeployment", d.Name, "--wait=true", "--timeout=60s")
	})
	step("%s: stored with the webhook down", d.Name)
	scale("1")
	waitFor(t, d, "refused by the operator in status.error", 3*time.Minute, func(d *flinkv1beta1.FlinkDeployment) bool {
		return strings.Contains(flinkv1beta1.ErrorMessage(d.Status.Error), "spec.job.jarURI")
	})
	// Events are posted asynchronously: poll for the Warning.
	warned := false
	for deadline := time.Now().Add(time.Minute); !warned && time.Now().Before(deadline); time.Sleep(2 * time.Second) {
		var events corev1.EventList
		if err := env.client.List(ctx, &events, client.InNamespace(jobNS)); err != nil {
			t.Fatal(err)
		}
		for _, e := range events.Items {
			warned = warned || (e.InvolvedObject.Name == d.Name && e.Type == corev1.EventTypeWarning)
		}
	}
	if !warned {
		t.Error("no Warning Event about the refused spec within a minute")
	}
	var jm appsv1.Deployment
	if err := env.client.Get(ctx, client.ObjectKey{Namespace: jobNS, Name: d.Name}, &jm); !apierrors.IsNotFound(err) {
		t.Errorf("a JobManager Deployment for the refused spec: %v", err)
	}
}

// checkSessionJobLabelled creates a session job and finds it stored with the mutating
// webhook's target.session label. The mutating configuration gets its CA apart from the
// validating one: until the API server trusts it (failurePolicy Ignore) a job is stored
// unlabelled, deleted and created again, for up to 2 minutes.
func checkSessionJobLabelled(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	for start := time.Now(); ; time.Sleep(5 * time.Second) {
		j := fixtures.SessionJob(jobNS, "e2e-webhook-label", "e2e-no-such-session")
		if err := env.client.Create(ctx, j); err != nil {
			t.Fatal(err)
		}
		got := j.Labels[flinkv1beta1.LabelTargetSession]
		if _, err := kubectl(ctx, "delete", "-n", jobNS, "flinksessionjob", j.Name, "--wait=true", "--timeout=60s"); err != nil {
			t.Fatal(err)
		}
		if got == j.Spec.DeploymentName {
			step("%s: labelled %s=%s by the mutating webhook after %s", j.Name, flinkv1beta1.LabelTargetSession, got, time.Since(start).Round(time.Second))
			return
		}
		if time.Since(start) > 2*time.Minute {
			t.Fatalf("session job stored with %s=%q for 2 minutes, want %q (the mutating webhook)", flinkv1beta1.LabelTargetSession, got, j.Spec.DeploymentName)
		}
	}
}
