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

	"sigs.k8s.io/yaml"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestWebhookRefusesABadSpecAtApply applies, with kubectl as a user does, a FlinkDeployment
// without its jar: the chart's webhook, with the certificate the operator made for itself
// (its CA injected into the webhook configuration, its Secret mounted by the kubelet), refuses
// it and names the field. Until the certificate is in place the API server ignores the
// webhook (failurePolicy Ignore): such an apply is deleted and tried again.
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
