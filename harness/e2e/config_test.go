//go:build e2e

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestOperatorConfigChangeWithoutRestart changes the operator options through the chart
// (helm upgrade: a new operator ConfigMap, the same Deployment) to take periodic savepoints:
// the running deployment gets them, and the operator pod is the one that ran before. The
// kubelet writes the ConfigMap through to the mounted file within about a minute, and the
// operator reads it again every kubernetes.operator.dynamic.config.check.interval (1 min).
func TestOperatorConfigChangeWithoutRestart(t *testing.T) {
	d := running(t, newDeployment(t, "e2e-live-config", flinkv1beta1.UpgradeModeSavepoint, nil), startTimeout)
	before := operatorPod(t)
	file := filepath.Join(t.TempDir(), "config.yaml")
	options := e2eOptions + "kubernetes.operator.periodic.savepoint.interval: 30 s\n"
	if err := os.WriteFile(file, []byte(options), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := upgradeChart("--set-file", `defaultConfiguration.config\.yaml=`+file); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // back to the chart's options for the tests that follow
		if err := upgradeChart(); err != nil {
			t.Error(err)
		}
	})
	step("%s: operator options changed through helm upgrade", d.Name)
	waitFor(t, d, "a periodic savepoint", 5*time.Minute, func(d *flinkv1beta1.FlinkDeployment) bool {
		si := d.Status.JobStatus.SavepointInfo
		return si != nil && si.LastPeriodicSavepointTimestamp > 0
	})
	if after := operatorPod(t); after != before {
		t.Errorf("the operator pod changed from %s to %s: the options were not read without a restart", before, after)
	}
}

// operatorPod is the name and uid of the operator's pod.
func operatorPod(t *testing.T) string {
	t.Helper()
	out, err := kubectl(context.Background(), "-n", operatorNS, "get", "pods", "-l", "app.kubernetes.io/component=manager",
		"-o", "jsonpath={range .items[*]}{.metadata.name}/{.metadata.uid} {end}")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(out)
}
