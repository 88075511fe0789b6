package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestApacheNamespaceCounts: the namespace-scope gauges under the Apache operator's names and
// labels, for FlinkDeployments and FlinkSessionJobs, moving with each resource and dropped
// with it; every lifecycle state's gauge exists once a namespace has a resource.
func TestApacheNamespaceCounts(t *testing.T) {
	reg := prometheus.NewRegistry()
	r, err := NewForPod(reg, Pod{Host: "h", Name: "op-0", Namespace: "flinkop-system"})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a, b := types.NamespacedName{Namespace: "ns", Name: "a"}, types.NamespacedName{Namespace: "ns", Name: "b"}
	r.Observe(flinkv1beta1.JobKindDeployment, a, ResourceState{Lifecycle: "DEPLOYED", JobManager: "DEPLOYING"}, t0)
	r.Observe(flinkv1beta1.JobKindDeployment, b, ResourceState{Lifecycle: "STABLE", JobManager: "READY", FlinkVersion: "1.20.1"}, t0)
	r.Observe(flinkv1beta1.JobKindDeployment, a, ResourceState{Lifecycle: "STABLE", JobManager: "READY", FlinkVersion: "2.1.0"}, t0.Add(time.Minute))
	r.Observe(flinkv1beta1.JobKindSessionJob, a, ResourceState{Lifecycle: "STABLE"}, t0)
	r.Observe(flinkv1beta1.JobKindDeployment, b, ResourceState{Lifecycle: "STABLE", JobManager: "READY", FlinkVersion: "1.20.2"}, t0.Add(time.Minute))

	labels := `{host="h",name="op-0",namespace="flinkop-system",resourcens="ns",resourcetype="FlinkDeployment"}`
	got := gatherValues(t, reg, NamespacePrefix)
	want := map[string]float64{
		NamespacePrefix + "Count" + labels:                                                                                  2,
		NamespacePrefix + "Lifecycle_State_STABLE_Count" + labels:                                                           2,
		NamespacePrefix + "Lifecycle_State_DEPLOYED_Count" + labels:                                                         0,
		NamespacePrefix + "JmDeploymentStatus_READY_Count" + labels:                                                         2,
		NamespacePrefix + "JmDeploymentStatus_DEPLOYING_Count" + labels:                                                     0,
		NamespacePrefix + "FlinkVersion_2_1_0_Count" + labels:                                                               1,
		NamespacePrefix + "FlinkVersion_1_20_2_Count" + labels:                                                              1,
		NamespacePrefix + "FlinkMinorVersion_2_1_Count" + labels:                                                            1,
		NamespacePrefix + "FlinkMinorVersion_1_20_Count" + labels:                                                           1,
		NamespacePrefix + "Count" + strings.Replace(labels, "FlinkDeployment", "FlinkSessionJob", 1):                        1,
		NamespacePrefix + "Lifecycle_State_STABLE_Count" + strings.Replace(labels, "FlinkDeployment", "FlinkSessionJob", 1): 1,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if _, ok := got[NamespacePrefix+"FlinkVersion_1_20_1_Count"+labels]; ok {
		t.Error("a version no resource runs any more is still reported")
	}
	r.Forget(flinkv1beta1.JobKindDeployment, a)
	r.Forget(flinkv1beta1.JobKindDeployment, b)
	got = gatherValues(t, reg, NamespacePrefix)
	for k := range got {
		if strings.Contains(k, `resourcetype="FlinkDeployment"`) {
			t.Errorf("the namespace's FlinkDeployments are gone, its gauge %s stays", k)
		}
	}
	if got[NamespacePrefix+"Count"+strings.Replace(labels, "FlinkDeployment", "FlinkSessionJob", 1)] != 1 {
		t.Errorf("the namespace's session job is no longer counted: %v", got)
	}
	r.Observe(flinkv1beta1.JobKindDeployment, a, ResourceState{Lifecycle: "CREATED"}, t0) // states come back with a resource
	if got = gatherValues(t, reg, NamespacePrefix); got[NamespacePrefix+"Lifecycle_State_STABLE_Count"+labels] != 0 || len(got) < 12 {
		t.Errorf("a new FlinkDeployment did not bring the state gauges back: %v", got)
	}
}

// TestApacheTransitionTimes: Apache's tracked transitions, each measured from the right end of
// its from state, and a transition across a settled state not measured.
func TestApacheTransitionTimes(t *testing.T) {
	reg := prometheus.NewRegistry()
	r, err := NewForPod(reg, Pod{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	key := types.NamespacedName{Namespace: "ns", Name: "a"}
	at := func(sec int, state string) {
		r.Observe(flinkv1beta1.JobKindDeployment, key, ResourceState{Lifecycle: state}, t0.Add(time.Duration(sec)*time.Second))
	}
	at(0, "UPGRADING")
	at(10, "UPGRADING")
	at(15, "DEPLOYED") // Submission: 5 s after UPGRADING was last seen
	at(60, "DEPLOYED")
	at(75, "STABLE") // Stabilization: 60 s after DEPLOYED was entered
	at(300, "STABLE")
	at(310, "UPGRADING") // Suspend: 10 s after STABLE was last seen
	at(320, "DEPLOYED")  // Submission: 10 s
	at(340, "STABLE")    // Upgrade: 40 s after STABLE was last seen; Stabilization: 20 s

	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]float64{}
	for _, tr := range []string{"Submission", "Stabilization", "Suspend", "Upgrade", "Resume", "Rollback"} {
		for _, f := range families {
			if f.GetName() == TransitionMetric(flinkv1beta1.JobKindDeployment, tr) && len(f.GetMetric()) == 1 {
				s := f.GetMetric()[0].GetSummary()
				got[tr] = []float64{float64(s.GetSampleCount()), s.GetSampleSum()}
			}
		}
	}
	want := map[string][]float64{
		"Submission": {2, 15}, "Stabilization": {2, 80}, "Suspend": {1, 10}, "Upgrade": {1, 40},
		"Resume": {0, 0}, "Rollback": {0, 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("transition (count, sum) (-want +got):\n%s", diff)
	}
}

// gatherValues maps "name{labels}" to the value of every gauge whose name starts with prefix.
func gatherValues(t *testing.T, reg *prometheus.Registry, prefix string) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), prefix) {
			continue
		}
		for _, m := range f.GetMetric() {
			var ls []string
			for _, l := range m.GetLabel() {
				ls = append(ls, l.GetName()+`="`+l.GetValue()+`"`)
			}
			out[f.GetName()+"{"+strings.Join(ls, ",")+"}"] = m.GetGauge().GetValue()
		}
	}
	return out
}

func TestSanitizeBoundsVersions(t *testing.T) {
	if got := sanitize(strings.Repeat("9", 100) + "-x"); len(got) != maxVersion {
		t.Errorf("sanitize kept %d characters, want %d", len(got), maxVersion)
	}
	if got := sanitize(`1.20"} evil{`); got != "1_20___evil_" {
		t.Errorf("sanitize = %q", got)
	}
}
