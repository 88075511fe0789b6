package controller_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/controller"
)

// TestOperatorFlinkDefaults: the Flink options of the operator's file (operator-wide and per
// namespace) are the defaults of a deployment's configuration. They count when the spec is
// validated (a savepoint upgrade with the operator's savepoint directory), reach the cluster,
// yield to the spec's own keys, and are never written into the resource's status. A change of
// them restarts nothing: it applies at the next deploy, as in the Apache operator.
func TestOperatorFlinkDefaults(t *testing.T) {
	file := filepath.Join(t.TempDir(), "operator.yaml")
	write := func(extra string) {
		t.Helper()
		content := config.KeyProgressCheckInterval + ": 2 s\n" + config.KeyReconcileInterval + ": 30 s\n" +
			config.KeyFlinkClientTimeout + ": 1 s\n" +
			"state.savepoints.dir: file:///data/sp-default\n" +
			"taskmanager.numberOfTaskSlots: \"8\"\n" +
			config.NamespacePrefix + ns + ".restart-strategy.type: fixed-delay\n" + extra
		if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	live, err := config.NewLive(data)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.r = controller.Setup{Live: live, Transport: e.sim, Clock: e.clock, APIReader: e.client}.Reconciler(e.client, e.rec)

	e.createRunning(deployment("dflt", flinkv1beta1.UpgradeModeSavepoint, func(d *flinkv1beta1.FlinkDeployment) {
		delete(d.Spec.FlinkConfiguration, flinkv1beta1.ConfigSavepointsDir) // the operator's applies
	}))
	conf := map[string]string{}
	for _, kv := range e.cluster("dflt").Config() {
		conf[kv[0]] = kv[1]
	}
	for k, want := range map[string]string{
		flinkv1beta1.ConfigSavepointsDir: "file:///data/sp-default", // operator-wide
		"restart-strategy.type":          "fixed-delay",             // the namespace's
		"taskmanager.numberOfTaskSlots":  "2",                       // the spec's own wins
	} {
		if conf[k] != want {
			t.Errorf("the cluster's %s = %q, want %q", k, conf[k], want)
		}
	}

	e.advance("dflt", 25*time.Second)
	e.update("dflt", setParallelism(4))
	d := e.until("dflt", 40, "running generation 2", running(2))
	if path := d.Status.JobStatus.UpgradeSavepointPath; !strings.HasPrefix(path, "file:///data/sp-default/savepoint-") {
		t.Errorf("upgradeSavepointPath %q, want one in the operator's savepoint directory", path)
	}
	for _, s := range []string{d.Status.ReconciliationStatus.LastReconciledSpec, d.Status.ReconciliationStatus.LastStableSpec} {
		if strings.Contains(s, "sp-default") || strings.Contains(s, "fixed-delay") {
			t.Errorf("a default was written into the status: %s", s)
		}
	}

	write("pipeline.name: changed\n")
	if changed, _, err := live.Reload(file); !changed || err != nil {
		t.Fatalf("reload: %v, %v", changed, err)
	}
	run := e.jmRun("dflt")
	e.advance("dflt", time.Minute)
	if got := e.get("dflt"); got.Status.ReconciliationStatus.State != flinkv1beta1.ReconciliationDeployed || e.jmRun("dflt") != run || e.jmGeneration("dflt") != "2" {
		t.Errorf("a change of the defaults restarted the deployment: state %s, run %s → %s", got.Status.ReconciliationStatus.State, run, e.jmRun("dflt"))
	}
}
