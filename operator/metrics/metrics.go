// Package metrics holds Flinkop's Prometheus metrics: resources per lifecycle state and per
// JobManager deployment status, how long resources spend in each lifecycle state, savepoint and
// checkpoint outcomes, and reconcile errors. They are served on the manager's metrics endpoint
// (controller-runtime's registry) next to controller-runtime's own.
package metrics

import (
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// Names of the metrics, for documentation and tests.
const (
	ResourcesName       = "flinkop_resources"
	JobManagerName      = "flinkop_jobmanager_deployments"
	TransitionName      = "flinkop_lifecycle_transition_seconds"
	SnapshotsName       = "flinkop_snapshots_total"
	ReconcileErrorsName = "flinkop_reconcile_errors_total"
	ConflictsName       = "flinkop_status_conflicts_total"
	ThrottledName       = "flinkop_reconciles_throttled_total"
	SlotWaitsName       = "flinkop_service_create_waits_total"
	SnapshotWaitsName   = "flinkop_snapshot_slot_waits_total"
	StaleReadsName      = "flinkop_stale_reads_total"
	// BlueGreenName counts what FlinkBlueGreenDeployments did, by event: Deploying,
	// Savepoint, Active (a child became active), Aborted, Failed, Suspended, Ingress.
	BlueGreenName = "flinkop_bluegreen_events_total"
)

// Recorder records what the reconciler saw and did. It is safe for concurrent reconciles.
// A nil *Recorder records nothing.
type Recorder struct {
	apache     *apache
	resources  *prometheus.GaugeVec
	jobMgrs    *prometheus.GaugeVec
	durations  *prometheus.HistogramVec
	snapshots  *prometheus.CounterVec
	errors     *prometheus.CounterVec
	conflicts  prometheus.Counter
	throttled  prometheus.Counter
	slotWaits  prometheus.Counter
	snapWaits  prometheus.Counter
	staleReads prometheus.Counter
	blueGreen  *prometheus.CounterVec
}

// New creates the metrics and registers them with reg, with no operator pod labels.
func New(reg prometheus.Registerer) (*Recorder, error) { return NewForPod(reg, Pod{}) }

// NewForPod creates the metrics and registers them with reg (controller-runtime's
// metrics.Registry in the operator); pod labels the Apache-named metrics.
func NewForPod(reg prometheus.Registerer, pod Pod) (*Recorder, error) {
	a, err := newApache(pod, reg)
	if err != nil {
		return nil, err
	}
	r := &Recorder{
		apache: a,
		resources: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: ResourcesName, Help: "FlinkDeployments per namespace and lifecycle state.",
		}, []string{"namespace", "lifecycle_state"}),
		jobMgrs: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: JobManagerName, Help: "FlinkDeployments per namespace and JobManager deployment status.",
		}, []string{"namespace", "status"}),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: TransitionName, Help: "Time a FlinkDeployment spent in a lifecycle state before it moved to the next one.",
			Buckets: []float64{1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 4 * 3600, 24 * 3600},
		}, []string{"from", "to"}),
		snapshots: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: SnapshotsName, Help: "Savepoints and checkpoints the operator followed to the end, by kind and result.",
		}, []string{"kind", "result"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: ReconcileErrorsName, Help: "Reconciles that failed, by the step that failed.",
		}, []string{"step"}),
		conflicts: prometheus.NewCounter(prometheus.CounterOpts{
			Name: ConflictsName, Help: "Status writes and finalizer adds that lost a race with another write of the resource and were retried.",
		}),
		throttled: prometheus.NewCounter(prometheus.CounterOpts{
			Name: ThrottledName, Help: "Reconciles put off because their resource was reconciled faster than the per-resource rate allows.",
		}),
		slotWaits: prometheus.NewCounter(prometheus.CounterOpts{
			Name: SlotWaitsName, Help: "Actions put off because every cluster-IP Service create slot was taken (retried after a per-Service back-off).",
		}),
		snapWaits: prometheus.NewCounter(prometheus.CounterOpts{
			Name: SnapshotWaitsName, Help: "Periodic savepoints and checkpoints put off because kubernetes.operator.snapshot.max-concurrent were in flight (looked at again 10 s later).",
		}),
		staleReads: prometheus.NewCounter(prometheus.CounterOpts{
			Name: StaleReadsName, Help: "Reconciles put off because the cache still held the resource as it was before the operator's own last write of it.",
		}),
		blueGreen: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: BlueGreenName, Help: "What FlinkBlueGreenDeployments did, by event (Deploying, Savepoint, Active, Aborted, Failed, Suspended, Ingress).",
		}, []string{"event"}),
	}
	for _, c := range []prometheus.Collector{r.resources, r.jobMgrs, r.durations, r.snapshots, r.errors, r.conflicts, r.throttled, r.slotWaits, r.snapWaits, r.staleReads, r.blueGreen} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// ResourceState is what the metrics follow of a resource.
type ResourceState struct {
	// Lifecycle is status.lifecycleState.
	Lifecycle string
	// JobManager is a FlinkDeployment's status.jobManagerDeploymentStatus.
	JobManager string
	// FlinkVersion is the flink-version of a FlinkDeployment's status.clusterInfo.
	FlinkVersion string
	// CPU and Memory are a FlinkDeployment's total-cpu and total-memory (bytes) of
	// status.clusterInfo (see Usage), summed per namespace.
	CPU    float64
	Memory int64
	// JobStatus is a FlinkBlueGreenDeployment's status.jobStatus.state.
	JobStatus string
	// Savepoint tells a FlinkStateSnapshot savepoint from a checkpoint.
	Savepoint bool
}

// Observe records a resource of kind in state s at now: the Apache-named metrics for every
// kind (for KindSnapshot, Lifecycle is status.state; for KindBlueGreen, status.blueGreenState),
// the lifecycle summaries for FlinkDeployments and FlinkSessionJobs, the flinkop_* gauges for
// FlinkDeployments (all from the one record the Apache metrics keep of each resource).
func (r *Recorder) Observe(kind flinkv1beta1.JobKind, key types.NamespacedName, s ResourceState, now time.Time) {
	if r == nil {
		return
	}
	prev, since, known := r.apache.observe(kind, key, s, now)
	if kind != flinkv1beta1.JobKindDeployment || (known && prev.Lifecycle == s.Lifecycle && prev.JobManager == s.JobManager) {
		return
	}
	if known {
		r.resources.WithLabelValues(key.Namespace, prev.Lifecycle).Dec()
		r.jobMgrs.WithLabelValues(key.Namespace, prev.JobManager).Dec()
		if prev.Lifecycle != s.Lifecycle {
			r.durations.WithLabelValues(prev.Lifecycle, s.Lifecycle).Observe(now.Sub(since).Seconds())
		}
	}
	r.resources.WithLabelValues(key.Namespace, s.Lifecycle).Inc()
	r.jobMgrs.WithLabelValues(key.Namespace, s.JobManager).Inc()
}

// Resources is the gauge of resources in a namespace and lifecycle state.
func (r *Recorder) Resources(namespace, lifecycle string) prometheus.Gauge {
	return r.resources.WithLabelValues(namespace, lifecycle)
}

// Forget drops a deleted resource of kind from the gauges.
func (r *Recorder) Forget(kind flinkv1beta1.JobKind, key types.NamespacedName) {
	if r == nil {
		return
	}
	prev, known := r.apache.forget(kind, key)
	if kind != flinkv1beta1.JobKindDeployment || !known {
		return
	}
	r.resources.WithLabelValues(key.Namespace, prev.Lifecycle).Dec()
	r.jobMgrs.WithLabelValues(key.Namespace, prev.JobManager).Dec()
}

// Event counts the outcomes a reconcile's Events report (savepoints and checkpoints).
func (r *Recorder) Event(reason string) {
	if r == nil {
		return
	}
	switch reason {
	case "SavepointCompleted":
		r.snapshots.WithLabelValues("savepoint", "success").Inc()
	case "SavepointError":
		r.snapshots.WithLabelValues("savepoint", "failure").Inc()
	case "CheckpointCompleted":
		r.snapshots.WithLabelValues("checkpoint", "success").Inc()
	case "CheckpointError":
		r.snapshots.WithLabelValues("checkpoint", "failure").Inc()
	default:
		if event, ok := strings.CutPrefix(reason, "BlueGreen"); ok {
			r.blueGreen.WithLabelValues(event).Inc()
		}
	}
}

// ReconcileError counts a failed reconcile step (observe, the action's kind, status, …).
func (r *Recorder) ReconcileError(step string) {
	if r == nil {
		return
	}
	r.errors.WithLabelValues(step).Inc()
}

// StatusConflict counts a status write or finalizer add that lost a race (retried, not an error).
func (r *Recorder) StatusConflict() {
	if r == nil {
		return
	}
	r.conflicts.Inc()
}

// SlotWait counts an action put off because no Service create slot was free.
func (r *Recorder) SlotWait() {
	if r == nil {
		return
	}
	r.slotWaits.Inc()
}

// SnapshotSlotWait counts a periodic snapshot put off because no snapshot slot was free.
func (r *Recorder) SnapshotSlotWait() {
	if r == nil {
		return
	}
	r.snapWaits.Inc()
}

// StaleRead counts a reconcile put off because the cache was behind the operator's own write.
func (r *Recorder) StaleRead() {
	if r == nil {
		return
	}
	r.staleReads.Inc()
}

// Throttled counts a reconcile put off by the per-resource rate limit.
func (r *Recorder) Throttled() {
	if r == nil {
		return
	}
	r.throttled.Inc()
}
