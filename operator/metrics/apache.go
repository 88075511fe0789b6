package metrics

import (
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// The Apache operator's metrics, named as its Prometheus reporter exports them: "flink_", the
// metric group's logical scope ("k8soperator", "k8soperator_namespace"), the subgroups and the
// metric name, every character other than [A-Za-z0-9_] written as "_". Its scope variables are
// labels: the operator pod's host, name and namespace, and for the namespace scope the
// resource's namespace (resourcens) and kind (resourcetype).
const (
	// ApachePrefix starts every Apache-named metric.
	ApachePrefix = "flink_k8soperator_"
	// NamespacePrefix starts the namespace-scope gauges (see countNames for each kind's).
	NamespacePrefix = ApachePrefix + "namespace_"
	// maxVersion bounds a Flink version in a metric name: the version is what the cluster's
	// REST API reports, which a tenant's image chooses.
	maxVersion = 32
)

// Pod names the operator pod, the labels host, name and namespace of every Apache metric.
type Pod struct{ Host, Name, Namespace string }

// apache keeps the namespace-scope counts and the lifecycle summaries.
type apache struct {
	pod         Pod
	mu          sync.Mutex
	counts      map[countKey]int
	members     map[scopeKey]int // resources per namespace and kind
	resources   map[resourceKey]*tracked
	transitions map[string]prometheus.Summary // by TransitionMetric
	stateTimes  map[string]prometheus.Summary // by StateTimeMetric
	autoscaled  map[resourceKey]*autoscaled
}

type countKey struct {
	name, namespace string
	kind            flinkv1beta1.JobKind
}

type scopeKey struct {
	namespace string
	kind      flinkv1beta1.JobKind
}

type resourceKey struct {
	kind flinkv1beta1.JobKind
	types.NamespacedName
}

func newApache(pod Pod, reg prometheus.Registerer) (*apache, error) {
	a := &apache{
		pod: pod, counts: map[countKey]int{}, members: map[scopeKey]int{}, resources: map[resourceKey]*tracked{},
		transitions: map[string]prometheus.Summary{}, stateTimes: map[string]prometheus.Summary{},
		autoscaled: map[resourceKey]*autoscaled{},
	}
	if err := a.registerLifecycle(reg); err != nil {
		return nil, err
	}
	return a, reg.Register(a)
}

func (p Pod) labels() prometheus.Labels {
	return prometheus.Labels{"host": p.Host, "name": p.Name, "namespace": p.Namespace}
}

// observe records one resource's state at now.
// It returns what it knew of the resource before (known): its state, and when it entered its
// lifecycle state.
func (a *apache) observe(kind flinkv1beta1.JobKind, key types.NamespacedName, s ResourceState, now time.Time) (prev ResourceState, since time.Time, known bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	rk := resourceKey{kind, key}
	t := a.resources[rk]
	if t != nil {
		prev, known = t.counted, true
		if st := t.time(t.state); st != nil {
			since = time.Unix(0, st.entered)
		}
	}
	if t == nil {
		t = &tracked{}
		a.resources[rk] = t
		if a.members[scopeKey{key.Namespace, kind}]++; a.members[scopeKey{key.Namespace, kind}] == 1 {
			for _, name := range initialCounts(kind) { // as Apache registers them when it first sees a namespace
				a.counts[countKey{name, key.Namespace, kind}] += 0
			}
		}
		a.add(key.Namespace, kind, countNames(kind, s), 1)
	} else if s != t.counted {
		a.add(key.Namespace, kind, countNames(kind, t.counted), -1)
		a.add(key.Namespace, kind, countNames(kind, s), 1)
	}
	if kind == KindBlueGreen && s.JobStatus == "FAILING" && prev.JobStatus != "FAILING" {
		a.counts[countKey{"Failures", key.Namespace, kind}]++
	}
	t.counted = s
	if kind == flinkv1beta1.JobKindDeployment || kind == flinkv1beta1.JobKindSessionJob {
		a.track(kind, t, s.Lifecycle, now.UnixNano())
	}
	return prev, since, known
}

// forget drops a deleted resource.
// It returns the resource's last state, if it was known.
func (a *apache) forget(kind flinkv1beta1.JobKind, key types.NamespacedName) (ResourceState, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	rk := resourceKey{kind, key}
	delete(a.autoscaled, rk)
	t := a.resources[rk]
	if t == nil {
		return ResourceState{}, false
	}
	a.add(key.Namespace, kind, countNames(kind, t.counted), -1)
	delete(a.resources, rk)
	sk := scopeKey{key.Namespace, kind}
	if a.members[sk]--; a.members[sk] == 0 {
		// The namespace's last resource of kind went: so do its gauges (namespaces come and go).
		delete(a.members, sk)
		for k := range a.counts {
			if k.namespace == key.Namespace && k.kind == kind && k.name != "Failures" { // a counter: only grows
				delete(a.counts, k)
			}
		}
	}
	return t.counted, true
}

func (a *apache) add(namespace string, kind flinkv1beta1.JobKind, names []string, delta int) {
	for _, n := range names {
		k := countKey{n, namespace, kind}
		a.counts[k] += delta
		if a.counts[k] == 0 && strings.HasPrefix(n, "Flink") { // versions come and go; states stay
			delete(a.counts, k)
		}
	}
}

// Describe sends nothing: the count gauges' names depend on the states and versions seen, so
// the collector is unchecked.
func (a *apache) Describe(chan<- *prometheus.Desc) {}

// Collect sends the namespace-scope counts, and the namespaces' FlinkDeployment resource
// usage (summed here, not kept as running sums, which would drift).
func (a *apache) Collect(ch chan<- prometheus.Metric) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, n := range a.counts {
		a.gauge(ch, k, float64(n))
	}
	usage := map[countKey]float64{}
	for rk, t := range a.resources {
		if rk.kind == flinkv1beta1.JobKindDeployment {
			usage[countKey{"ResourceUsage_Cpu", rk.Namespace, rk.kind}] += t.counted.CPU
			usage[countKey{"ResourceUsage_Memory", rk.Namespace, rk.kind}] += float64(t.counted.Memory)
		}
	}
	for k, v := range usage {
		a.gauge(ch, k, v)
	}
	a.collectAutoscaled(ch)
}

func (a *apache) gauge(ch chan<- prometheus.Metric, k countKey, v float64) {
	desc := prometheus.NewDesc(NamespacePrefix+k.name, "Managed resources of a namespace and kind: "+strings.ReplaceAll(k.name, "_", " ")+".",
		nil, prometheus.Labels{"host": a.pod.Host, "name": a.pod.Name, "namespace": a.pod.Namespace, "resourcens": k.namespace, "resourcetype": string(k.kind)})
	ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, v)
}
