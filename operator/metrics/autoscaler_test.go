package metrics

import (
	"math"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/autoscaler"
)

// TestAutoscalerMetrics: each autoscaled job's per-vertex gauges under Apache's names, with
// the last look's values (an unknown one left out), its decision counters, and all of it gone
// with the resource.
func TestAutoscalerMetrics(t *testing.T) {
	reg, r := newRecorder(t, Pod{Host: "h", Name: "op-0", Namespace: "op"})
	key := types.NamespacedName{Namespace: "ns", Name: "job"}
	topo := []autoscaler.Vertex{{ID: "src", Parallelism: 2, MaxParallelism: 128}, {ID: "map", Parallelism: 4, MaxParallelism: 64}}
	eval := map[string]autoscaler.Evaluated{
		"src": {Utilization: 0.9, TrueProcessingRate: 1000, TargetRate: 1500, Lag: 30, ScaleUpThreshold: 1200, ScaleDownThreshold: 3000},
		"map": {Utilization: 0, TrueProcessingRate: math.Inf(1), TargetRate: 0, ScaleUpThreshold: 10, ScaleDownThreshold: 20},
	}
	r.Autoscaled(key, topo, &autoscaler.Decision{Evaluated: eval}, 0) // balanced
	r.Autoscaled(key, nil, nil, 2)                                    // two errors, no look
	r.Autoscaled(key, topo, &autoscaler.Decision{Evaluated: eval, Changes: map[string]autoscaler.Change{"src": {From: 2, To: 3, NewCapacity: 1500}}}, 0)

	labels := `host="h",name="op-0",namespace="op",resourcename="job",resourcens="ns",resourcetype="FlinkDeployment"`
	vertex := func(id string) string { // labels sorted by name
		return `{` + strings.Replace(labels, `host="h",`, `host="h",jobVertexID="`+id+`",`, 1) + `}`
	}
	got := gatherValues(t, reg, ResourcePrefix)
	want := map[string]float64{
		ResourcePrefix + "AutoScaler_scalings{" + labels + "}":                                     1,
		ResourcePrefix + "AutoScaler_balanced{" + labels + "}":                                     1,
		ResourcePrefix + "AutoScaler_errors{" + labels + "}":                                       2,
		ResourcePrefix + "AutoScaler_jobVertexID_LOAD_Average" + vertex("src"):                     0.9,
		ResourcePrefix + "AutoScaler_jobVertexID_TRUE_PROCESSING_RATE_Average" + vertex("src"):     1000,
		ResourcePrefix + "AutoScaler_jobVertexID_PARALLELISM_Current" + vertex("src"):              2,
		ResourcePrefix + "AutoScaler_jobVertexID_RECOMMENDED_PARALLELISM_Current" + vertex("src"):  3,
		ResourcePrefix + "AutoScaler_jobVertexID_RECOMMENDED_PARALLELISM_Current" + vertex("map"):  4,
		ResourcePrefix + "AutoScaler_jobVertexID_MAX_PARALLELISM_Current" + vertex("map"):          64,
		ResourcePrefix + "AutoScaler_jobVertexID_EXPECTED_PROCESSING_RATE_Current" + vertex("src"): 1500,
		ResourcePrefix + "AutoScaler_jobVertexID_SCALE_UP_RATE_THRESHOLD_Current" + vertex("src"):  1200,
		ResourcePrefix + "AutoScaler_jobVertexID_LAG_Current" + vertex("src"):                      30,
	}
	wantValues(t, got, want)
	for _, absent := range []string{"TRUE_PROCESSING_RATE_Average" + vertex("map"), "EXPECTED_PROCESSING_RATE_Current" + vertex("map")} {
		if _, ok := got[ResourcePrefix+"AutoScaler_jobVertexID_"+absent]; ok {
			t.Errorf("an unknown value is reported: %s", absent)
		}
	}
	r.Forget(flinkv1beta1.JobKindDeployment, key)
	for k := range gatherValues(t, reg, ResourcePrefix) {
		if strings.Contains(k, `resourcename="job"`) {
			t.Errorf("the resource is gone, its gauge %s stays", k)
		}
	}
}
