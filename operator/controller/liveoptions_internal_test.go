package controller

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
)

// TestReconcilersReadReloadedOptions: a change of the options file reaches the next
// reconcile of every resource without a restart, and its namespace's keys apply under the
// resource's own.
func TestReconcilersReadReloadedOptions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "operator.yaml")
	write := func(content string) {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(config.KeyReconcileInterval + ": 1 min\n")
	live, err := config.NewLive([]byte(config.KeyReconcileInterval + ": 1 min\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := Setup{Live: live}
	fd := s.Reconciler(nil, nil)
	sj := s.SessionJobReconciler(nil, nil)
	d := &flinkv1beta1.FlinkDeployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "team-a"}}
	j := &flinkv1beta1.FlinkSessionJob{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "team-a"}}
	intervals := func() (time.Duration, time.Duration) {
		t.Helper()
		a, err := fd.optionsFor(d)
		if err != nil {
			t.Fatal(err)
		}
		b, err := sj.optionsFor(j, nil)
		if err != nil {
			t.Fatal(err)
		}
		return a.ReconcileInterval, b.ReconcileInterval
	}
	if a, b := intervals(); a != time.Minute || b != time.Minute {
		t.Fatalf("before: %s, %s; want 1m", a, b)
	}
	write(config.KeyReconcileInterval + ": 2 min\n" + config.NamespacePrefix + "team-a." + config.KeyProgressCheckInterval + ": 20 s\n")
	if changed, _, err := live.Reload(path); !changed || err != nil {
		t.Fatalf("reload: %v, %v", changed, err)
	}
	if a, b := intervals(); a != 2*time.Minute || b != 2*time.Minute {
		t.Errorf("after the reload: %s, %s; want 2m", a, b)
	}
	if o, _ := fd.optionsFor(d); o.ProgressCheckInterval != 20*time.Second {
		t.Errorf("the namespace's progress interval %s, want 20s", o.ProgressCheckInterval)
	}
	d.Spec.FlinkConfiguration = flinkv1beta1.NewFlinkConfiguration(map[string]string{config.KeyProgressCheckInterval: "30 s"})
	if o, _ := fd.optionsFor(d); o.ProgressCheckInterval != 30*time.Second {
		t.Errorf("the resource's own progress interval %s, want 30s over its namespace's", o.ProgressCheckInterval)
	}
}
