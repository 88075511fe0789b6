package observe

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/autoscaler"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/decide"
	"github.com/flinkop/flinkop/operator/flink"
)

// autoscalerEnabled reports whether d's job is autoscaled: job.autoscaler.enabled, or options
// that do not parse while the enabled key is set to something but false (decide reports
// them).
func autoscalerEnabled(d *flinkv1beta1.FlinkDeployment) (autoscaler.Config, bool) {
	if d.Spec.Job == nil {
		return autoscaler.Config{}, false
	}
	conf, _ := d.Spec.Conf()
	c, err := autoscaler.ParseConfig(conf, config.ParseDuration)
	if err != nil {
		for _, p := range []string{autoscaler.Prefix, autoscaler.FallbackPrefix} {
			if v, set := conf[p+autoscaler.KeyEnabled]; set && !strings.EqualFold(strings.TrimSpace(v), "false") {
				return c, true
			}
		}
	}
	return c, c.Enabled
}

// autoscalerState reads the autoscaler's state ConfigMap of an autoscaled deployment past the
// cache, which keeps no ConfigMap's data (one read by name per look at an autoscaled job, as
// each look writes it). A state the resource does not control, or that does not decode, is
// reported, not used.
func (o *Observer) autoscalerState(ctx context.Context, d *flinkv1beta1.FlinkDeployment, obs *decide.Observation) error {
	key := client.ObjectKey{Namespace: d.Namespace, Name: act.AutoscalerConfigMapName(d.Name)}
	if _, on := autoscalerEnabled(d); !on {
		// A state left from when it was on is found in the cache (no read of the API server).
		cm := act.ConfigMapMetadata(key.Namespace, key.Name)
		err := o.Client.Get(ctx, key, cm)
		obs.AutoscalerStateLeft = err == nil && metav1.IsControlledBy(cm, d)
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("get autoscaler state: %w", err)
		}
		return nil
	}
	a := &decide.AutoscalerObservation{}
	obs.Autoscaler = a
	var cm corev1.ConfigMap
	reader := o.Reader
	if reader == nil {
		reader = o.Client
	}
	err := reader.Get(ctx, key, &cm)
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("get autoscaler state: %w", err)
	case !metav1.IsControlledBy(&cm, d):
		a.StateError = fmt.Sprintf("ConfigMap %s is not this resource's: rename or remove it", cm.Name)
		return nil
	}
	a.StateFound = true
	if a.State, err = autoscaler.Decode(cm.Data); err != nil {
		a.StateError = fmt.Sprintf("ConfigMap %s: %v; the autoscaler begins anew", cm.Name, err)
		a.State = autoscaler.State{}
	}
	return nil
}

// collectAutoscaler reads what the autoscaler needs of a running job: its graph and one sample
// of its vertices' metrics (GET /jobs/{id}, then per vertex one subtasks/metrics read, and for
// a source one more to find its operator's metric names).
func collectAutoscaler(ctx context.Context, api FlinkAPI, jobID, aggregator string) (*autoscaler.Observed, error) {
	details, err := api.JobDetails(ctx, jobID)
	if err != nil {
		return nil, fmt.Errorf("job details: %w", err)
	}
	if n := len(details.Vertices); n == 0 || n > autoscaler.MaxVertices {
		return nil, fmt.Errorf("the job has %d vertices; the autoscaler takes 1 to %d", n, autoscaler.MaxVertices)
	}
	inputs := map[string][]flink.PlanInput{}
	for _, n := range details.Plan.Nodes {
		inputs[n.ID] = n.Inputs
	}
	out := &autoscaler.Observed{
		RunningSince: time.UnixMilli(details.Timestamps["RUNNING"]).UTC(),
		Sample:       autoscaler.Sample{Time: time.UnixMilli(details.Now).UTC(), Vertices: map[string]autoscaler.VertexSample{}},
	}
	for _, v := range details.Vertices {
		if !vertexID(v.ID) {
			// A JobManager's answer: the id goes into the overrides (vid:p,vid:p) and metric labels.
			return nil, fmt.Errorf("vertex id %.40q is not a Flink job vertex id (32 hex digits)", v.ID)
		}
		if v.Parallelism < 1 || v.MaxParallelism < v.Parallelism {
			return nil, fmt.Errorf("vertex %s: parallelism %d of %d", v.ID, v.Parallelism, v.MaxParallelism)
		}
		vx := autoscaler.Vertex{ID: v.ID, Parallelism: int(v.Parallelism), MaxParallelism: int(v.MaxParallelism)}
		for _, in := range inputs[v.ID] {
			vx.Inputs = append(vx.Inputs, in.ID)
			vx.Keyed = vx.Keyed || in.ShipStrategy == "HASH"
		}
		out.Topology = append(out.Topology, vx)
		s, err := vertexSample(ctx, api, jobID, vx, aggregator)
		if err != nil {
			return nil, fmt.Errorf("vertex %s: %w", v.ID, err)
		}
		s.AccumulatedBusy = float64(v.Metrics.AccumulatedBusyTime)
		out.Sample.Vertices[v.ID] = s
	}
	return out, nil
}

// vertexSample reads one vertex's metrics: busy time per second (by the aggregator), records
// in and out summed over its subtasks; a source's records in are its operator's, and its
// backlog its operator's pendingRecords (NaN when it reports none).
func vertexSample(ctx context.Context, api FlinkAPI, jobID string, v autoscaler.Vertex, aggregator string) (autoscaler.VertexSample, error) {
	s := autoscaler.VertexSample{Pending: math.NaN()}
	names := []string{"busyTimeMsPerSecond", "numRecordsIn", "numRecordsOut"}
	var sourceIn, pending string
	if v.Source() {
		listed, err := api.SubtaskMetrics(ctx, jobID, v.ID, nil, nil)
		if err != nil {
			return s, err
		}
		for _, m := range listed {
			switch {
			case strings.HasPrefix(m.ID, "Source__") && strings.HasSuffix(m.ID, ".numRecordsIn"):
				sourceIn = m.ID
			case strings.HasSuffix(m.ID, ".pendingRecords"):
				pending = m.ID
			}
		}
		for _, n := range []string{sourceIn, pending} {
			if n != "" {
				names = append(names, n)
			}
		}
	}
	got, err := api.SubtaskMetrics(ctx, jobID, v.ID, names, []string{"min", "max", "avg", "sum"})
	if err != nil {
		return s, err
	}
	values := map[string]flink.AggregatedMetric{}
	for _, m := range got {
		values[m.ID] = m
	}
	for _, n := range names {
		if _, ok := values[n]; !ok {
			return s, fmt.Errorf("no %s reported", n)
		}
	}
	s.Busy = aggregate(values["busyTimeMsPerSecond"], aggregator)
	s.RecordsIn, s.RecordsOut = aggregate(values["numRecordsIn"], "SUM"), aggregate(values["numRecordsOut"], "SUM")
	if sourceIn != "" {
		s.RecordsIn = aggregate(values[sourceIn], "SUM")
	}
	if pending != "" {
		s.Pending = aggregate(values[pending], "SUM")
	}
	return s, nil
}

// aggregate picks an aggregation (NaN when Flink left it out or wrote "NaN": an unknown).
func aggregate(m flink.AggregatedMetric, how string) float64 {
	p := map[string]*flink.Float{"MAX": m.Max, "MIN": m.Min, "AVG": m.Avg, "SUM": m.Sum}[how]
	if p == nil {
		return math.NaN()
	}
	return float64(*p)
}

// vertexID reports whether id is a Flink JobVertexID as its REST API writes it: 32 hex digits.
func vertexID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for _, c := range id {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') && (c < 'A' || c > 'F') {
			return false
		}
	}
	return true
}
