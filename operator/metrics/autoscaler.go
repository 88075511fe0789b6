package metrics

import (
	"math"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/autoscaler"
)

// ResourcePrefix starts the resource-scope metrics of the Apache operator (its resource group
// sits in the namespace group: scope k8soperator.namespace.resource, labels resourcens,
// resourcename and resourcetype); its autoscaler's are ResourcePrefix + "AutoScaler_…".
const ResourcePrefix = NamespacePrefix + "resource_"

// VertexMetrics are the autoscaler's per-vertex gauges, as Apache's AutoscalerFlinkMetrics
// names them: flink_k8soperator_namespace_resource_AutoScaler_jobVertexID_<METRIC>_<Current|Average>,
// labelled jobVertexID. The averaged ones are over the metrics window.
var VertexMetrics = []string{
	"LOAD_Average", "TRUE_PROCESSING_RATE_Average", "TARGET_DATA_RATE_Average", "LAG_Current",
	"PARALLELISM_Current", "RECOMMENDED_PARALLELISM_Current", "MAX_PARALLELISM_Current",
	"SCALE_UP_RATE_THRESHOLD_Current", "SCALE_DOWN_RATE_THRESHOLD_Current", "EXPECTED_PROCESSING_RATE_Current",
}

// autoscaled is what the metrics keep of one autoscaled job (small: a value per vertex and
// metric, as a fleet may autoscale thousands).
type autoscaled struct {
	vertices                   []vertexValues
	scalings, balanced, errors int
}

type vertexValues struct {
	id     string
	values [10]float64 // in VertexMetrics' order; NaN: not known
}

// lookValues are a look's vertex values, by vertex id order.
func lookValues(topo []autoscaler.Vertex, d autoscaler.Decision) []vertexValues {
	recommended := d.Parallelism(topo)
	out := make([]vertexValues, 0, len(topo))
	for _, v := range topo {
		e, ok := d.Evaluated[v.ID]
		if !ok {
			continue
		}
		expected := math.NaN()
		if c, changed := d.Changes[v.ID]; changed {
			expected = c.NewCapacity
		}
		out = append(out, vertexValues{id: v.ID, values: [10]float64{
			e.Utilization, e.TrueProcessingRate, e.TargetRate, e.Lag,
			float64(v.Parallelism), float64(recommended[v.ID]), float64(v.MaxParallelism),
			e.ScaleUpThreshold, e.ScaleDownThreshold, expected,
		}})
	}
	slices.SortFunc(out, func(a, b vertexValues) int { return strings.Compare(a.id, b.id) })
	return out
}

// Autoscaled records a FlinkDeployment's autoscaler look (nil: none at this reconcile) and the
// autoscaler errors it reported (its AutoscalerError Events): the per-vertex gauges take the
// look's values, and the counters scalings (a decision that changed a vertex), balanced (one
// that changed none) and errors grow.
func (r *Recorder) Autoscaled(key types.NamespacedName, topo []autoscaler.Vertex, d *autoscaler.Decision, errors int) {
	if r == nil || (d == nil && errors == 0) {
		return
	}
	a := r.apache
	a.mu.Lock()
	defer a.mu.Unlock()
	rk := resourceKey{flinkv1beta1.JobKindDeployment, key}
	s := a.autoscaled[rk]
	if s == nil {
		s = &autoscaled{}
		a.autoscaled[rk] = s
	}
	s.errors += errors
	if d == nil {
		return
	}
	s.vertices = lookValues(topo, *d)
	if len(d.Changes) > 0 {
		s.scalings++
	} else {
		s.balanced++
	}
}

// collectAutoscaled sends the autoscaler's gauges; a.mu is held.
func (a *apache) collectAutoscaled(ch chan<- prometheus.Metric) {
	for rk, s := range a.autoscaled {
		labels := prometheus.Labels{
			"host": a.pod.Host, "name": a.pod.Name, "namespace": a.pod.Namespace,
			"resourcens": rk.Namespace, "resourcename": rk.Name, "resourcetype": string(rk.kind),
		}
		for name, n := range map[string]int{"scalings": s.scalings, "balanced": s.balanced, "errors": s.errors} {
			desc := prometheus.NewDesc(ResourcePrefix+"AutoScaler_"+name, "Autoscaler decisions of a resource: "+name+".", nil, labels)
			ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, float64(n))
		}
		for _, v := range s.vertices {
			for i, name := range VertexMetrics {
				if val := v.values[i]; !math.IsNaN(val) && !math.IsInf(val, 0) {
					desc := prometheus.NewDesc(ResourcePrefix+"AutoScaler_jobVertexID_"+name, "The autoscaler's "+name+" of a job vertex.",
						nil, withLabel(labels, "jobVertexID", v.id))
					ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, val)
				}
			}
		}
	}
}

func withLabel(l prometheus.Labels, k, v string) prometheus.Labels {
	out := prometheus.Labels{k: v}
	for lk, lv := range l {
		out[lk] = lv
	}
	return out
}
