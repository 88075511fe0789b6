package metrics

import (
	"slices"
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
	// NamespacePrefix starts the namespace-scope gauges:
	// flink_k8soperator_namespace_Count, …_Lifecycle_State_<STATE>_Count,
	// …_JmDeploymentStatus_<STATUS>_Count, …_FlinkVersion_<V>_Count,
	// …_FlinkMinorVersion_<V>_Count.
	NamespacePrefix = ApachePrefix + "namespace_"
	// maxVersion bounds a Flink version in a metric name: the version is what the cluster's
	// REST API reports, which a tenant's image chooses.
	maxVersion = 32
)

// LifecycleStates are the lifecycle states, each with its namespace gauge from the start (as
// Apache's operator registers them when it first sees a namespace).
var LifecycleStates = []string{"CREATED", "SUSPENDED", "UPGRADING", "DEPLOYED", "STABLE", "ROLLING_BACK", "ROLLED_BACK", "FAILED", "DELETING", "DELETED"}

// Transitions are the lifecycle transitions whose times Apache's operator records, by name:
// the time from leaving (or entering, for Stabilization and Rollback) the from state to
// entering the to state.
var Transitions = []Transition{
	{"SUSPENDED", "STABLE", true, "Resume"},
	{"STABLE", "STABLE", true, "Upgrade"},
	{"DEPLOYED", "UPGRADING", true, "Suspend"},
	{"STABLE", "UPGRADING", true, "Suspend"},
	{"ROLLED_BACK", "UPGRADING", true, "Suspend"},
	{"DEPLOYED", "SUSPENDED", true, "Suspend"},
	{"STABLE", "SUSPENDED", true, "Suspend"},
	{"ROLLED_BACK", "SUSPENDED", true, "Suspend"},
	{"DEPLOYED", "STABLE", false, "Stabilization"},
	{"DEPLOYED", "ROLLED_BACK", false, "Rollback"},
	{"UPGRADING", "DEPLOYED", true, "Submission"},
	{"ROLLING_BACK", "ROLLED_BACK", true, "Submission"},
}

// Transition is one tracked lifecycle transition.
type Transition struct {
	From, To string
	// FromLastSeen measures from the last time the resource was seen in From, else from when
	// it entered From.
	FromLastSeen bool
	Name         string
}

// settled are the states after which a resource's earlier state times are dropped: a later
// transition is measured within one change, not across an earlier one.
var settled = []string{"STABLE", "SUSPENDED", "ROLLED_BACK", "FAILED"}

// Pod names the operator pod, the labels host, name and namespace of every Apache metric.
type Pod struct{ Host, Name, Namespace string }

// TransitionMetric is the name of a transition's summary for kind, e.g.
// flink_k8soperator_FlinkDeployment_Lifecycle_Transition_Upgrade_TimeSeconds.
func TransitionMetric(kind flinkv1beta1.JobKind, transition string) string {
	return ApachePrefix + string(kind) + "_Lifecycle_Transition_" + transition + "_TimeSeconds"
}

// apache keeps the namespace-scope counts and the transition summaries.
type apache struct {
	pod         Pod
	mu          sync.Mutex
	counts      map[countKey]int
	resources   map[resourceKey]*tracked
	transitions map[string]prometheus.Summary // by TransitionMetric
}

type countKey struct {
	name, namespace string
	kind            flinkv1beta1.JobKind
}

type resourceKey struct {
	kind flinkv1beta1.JobKind
	types.NamespacedName
}

// tracked is what the Apache metrics remember of one resource (about 200 bytes, kept small:
// a fleet has 10,000).
type tracked struct {
	counted ResourceState // the state its counts were taken from
	state   string        // its lifecycle state
	times   []stateTime   // the states since it last settled
}

// stateTime is when a resource entered a state and when it was last seen in it (Unix ns).
type stateTime struct {
	state         string
	entered, last int64
}

func (t *tracked) time(state string) *stateTime {
	for i := range t.times {
		if t.times[i].state == state {
			return &t.times[i]
		}
	}
	return nil
}

func newApache(pod Pod, reg prometheus.Registerer) (*apache, error) {
	a := &apache{pod: pod, counts: map[countKey]int{}, resources: map[resourceKey]*tracked{}, transitions: map[string]prometheus.Summary{}}
	for _, kind := range []flinkv1beta1.JobKind{flinkv1beta1.JobKindDeployment, flinkv1beta1.JobKindSessionJob} {
		for _, t := range Transitions {
			name := TransitionMetric(kind, t.Name)
			if _, ok := a.transitions[name]; ok {
				continue
			}
			s := prometheus.NewSummary(prometheus.SummaryOpts{
				Name: name, Help: "Time of the " + t.Name + " lifecycle transitions of " + string(kind) + "s (seconds).",
				Objectives:  map[float64]float64{0.5: 0.05, 0.75: 0.02, 0.95: 0.01, 0.98: 0.005, 0.99: 0.001, 0.999: 0.0001},
				ConstLabels: pod.labels(),
			})
			if err := reg.Register(s); err != nil {
				return nil, err
			}
			a.transitions[name] = s
		}
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
		for _, state := range LifecycleStates { // every state's gauge exists once the namespace has a resource
			a.counts[countKey{"Lifecycle_State_" + state + "_Count", key.Namespace, kind}] += 0
		}
		a.add(key.Namespace, kind, countNames(kind, s), 1)
	} else if s != t.counted {
		a.add(key.Namespace, kind, countNames(kind, t.counted), -1)
		a.add(key.Namespace, kind, countNames(kind, s), 1)
	}
	t.counted = s
	a.track(kind, t, s.Lifecycle, now.UnixNano())
	return prev, since, known
}

// track records the lifecycle state at now (Unix ns) and the tracked transitions it
// completes.
func (a *apache) track(kind flinkv1beta1.JobKind, t *tracked, state string, now int64) {
	if state == "" {
		return
	}
	if state != t.state {
		a.transitioned(kind, t, state, now)
		if slices.Contains(settled, state) {
			t.times = slices.DeleteFunc(t.times, func(st stateTime) bool { return st.state != state })
		}
		if st := t.time(state); st != nil {
			st.entered = now
		} else {
			t.times = append(t.times, stateTime{state: state, entered: now})
		}
		t.state = state
	}
	t.time(state).last = now
}

// transitioned records the tracked transitions into state that t completes at now.
func (a *apache) transitioned(kind flinkv1beta1.JobKind, t *tracked, state string, now int64) {
	for _, tr := range Transitions {
		from := t.time(tr.From)
		if tr.To != state || from == nil {
			continue
		}
		start := from.entered
		if tr.FromLastSeen {
			start = from.last
		}
		a.transitions[TransitionMetric(kind, tr.Name)].Observe(time.Duration(now - start).Seconds())
	}
}

// forget drops a deleted resource.
// It returns the resource's last state, if it was known.
func (a *apache) forget(kind flinkv1beta1.JobKind, key types.NamespacedName) (ResourceState, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	rk := resourceKey{kind, key}
	t := a.resources[rk]
	if t == nil {
		return ResourceState{}, false
	}
	a.add(key.Namespace, kind, countNames(kind, t.counted), -1)
	delete(a.resources, rk)
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
	if delta < 0 && a.counts[countKey{"Count", namespace, kind}] == 0 {
		// The namespace's last resource of kind went: so do its gauges (namespaces come and go).
		for k := range a.counts {
			if k.namespace == namespace && k.kind == kind {
				delete(a.counts, k)
			}
		}
	}
}

// countNames are the namespace-scope counts a resource in state s adds one to.
func countNames(kind flinkv1beta1.JobKind, s ResourceState) []string {
	names := []string{"Count"}
	if s.Lifecycle != "" {
		names = append(names, "Lifecycle_State_"+s.Lifecycle+"_Count")
	}
	if kind != flinkv1beta1.JobKindDeployment {
		return names
	}
	if s.JobManager != "" {
		names = append(names, "JmDeploymentStatus_"+s.JobManager+"_Count")
	}
	if v := sanitize(s.FlinkVersion); v != "" {
		names = append(names, "FlinkVersion_"+v+"_Count")
		if major, rest, ok := strings.Cut(s.FlinkVersion, "."); ok {
			minor, _, _ := strings.Cut(rest, ".")
			names = append(names, "FlinkMinorVersion_"+sanitize(major+"."+minor)+"_Count")
		}
	}
	return names
}

// sanitize writes v as a metric name part: [A-Za-z0-9_] only, at most maxVersion characters.
func sanitize(v string) string {
	if len(v) > maxVersion {
		v = v[:maxVersion]
	}
	return strings.Map(func(r rune) rune {
		if r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			return r
		}
		return '_'
	}, v)
}

// Describe sends nothing: the count gauges' names depend on the states and versions seen, so
// the collector is unchecked.
func (a *apache) Describe(chan<- *prometheus.Desc) {}

// Collect sends the namespace-scope counts.
func (a *apache) Collect(ch chan<- prometheus.Metric) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, n := range a.counts {
		desc := prometheus.NewDesc(NamespacePrefix+k.name, "Managed resources of a namespace and kind: "+strings.ReplaceAll(k.name, "_", " ")+".",
			nil, prometheus.Labels{"host": a.pod.Host, "name": a.pod.Name, "namespace": a.pod.Namespace, "resourcens": k.namespace, "resourcetype": string(k.kind)})
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, float64(n))
	}
}
