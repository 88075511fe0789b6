package metrics

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// controllerRuntimeMetrics are the controller-runtime metrics the dashboard charts, served
// next to Flinkop's.
var controllerRuntimeMetrics = []string{"controller_runtime_reconcile_total", "controller_runtime_reconcile_time_seconds_bucket", "workqueue_depth"}

// TestDashboardChartsWhatIsExported reads the Grafana dashboard of the Helm chart and checks
// that every metric name (or name pattern) its queries use is one the operator exports: a
// renamed metric breaks this test, not a user's dashboard.
func TestDashboardChartsWhatIsExported(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "charts", "flinkop", "files", "flinkop-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatal(err)
	}
	exported := exportedNames(t)
	name := regexp.MustCompile(`(flinkop_|flink_k8soperator_|controller_runtime_|workqueue_)[A-Za-z0-9_]*`)
	checked := 0
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, target := range p.Targets {
			for _, used := range name.FindAllString(target.Expr, -1) {
				checked++
				if !exportedPrefix(exported, used) {
					t.Errorf("panel %q queries %s, which no exported metric is or starts with", p.Title, used)
				}
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d metric names found in the dashboard's queries", checked)
	}
}

// exportedNames gathers the families a recorder exports once it has seen resources of both
// kinds, snapshots and errors, with a summary's _count and _sum series.
func exportedNames(t *testing.T) []string {
	t.Helper()
	reg, r := newRecorder(t, Pod{Host: "h"})
	key, now := types.NamespacedName{Namespace: "ns", Name: "a"}, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r.Observe(flinkv1beta1.JobKindDeployment, key, ResourceState{Lifecycle: "STABLE", JobManager: "READY", FlinkVersion: "1.20.1"}, now)
	r.Observe(flinkv1beta1.JobKindSessionJob, key, ResourceState{Lifecycle: "STABLE"}, now)
	r.Event("SavepointCompleted")
	r.ReconcileError("observe")
	r.StaleRead()
	r.Throttled()
	r.StatusConflict()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := append([]string(nil), controllerRuntimeMetrics...)
	for _, f := range families {
		names = append(names, f.GetName(), f.GetName()+"_count", f.GetName()+"_sum")
	}
	return names
}

// exportedPrefix reports whether used is an exported name, or the literal start of one (a
// query matching names with a regular expression).
func exportedPrefix(exported []string, used string) bool {
	for _, n := range exported {
		if strings.HasPrefix(n, used) {
			return true
		}
	}
	return false
}
