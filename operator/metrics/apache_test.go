package metrics

import (
	"maps"
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
	reg, r := newRecorder(t, Pod{Host: "h", Name: "op-0", Namespace: "flinkop-system"})
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
	reg, at := lifecycleAt(t, flinkv1beta1.JobKindDeployment)
	at(0, "UPGRADING")
	at(10, "UPGRADING")
	at(15, "DEPLOYED") // Submission: 5 s after UPGRADING was last seen
	at(60, "DEPLOYED")
	at(75, "STABLE") // Stabilization: 60 s after DEPLOYED was entered
	at(300, "STABLE")
	at(310, "UPGRADING") // Suspend: 10 s after STABLE was last seen
	at(320, "DEPLOYED")  // Submission: 10 s
	at(340, "STABLE")    // Upgrade: 40 s after STABLE was last seen; Stabilization: 20 s

	names := map[string]string{}
	for _, tr := range []string{"Submission", "Stabilization", "Suspend", "Upgrade", "Resume", "Rollback"} {
		names[tr] = TransitionMetric(flinkv1beta1.JobKindDeployment, tr)
	}
	want := map[string][]float64{
		"Submission": {2, 15}, "Stabilization": {2, 80}, "Suspend": {1, 10}, "Upgrade": {1, 40},
		"Resume": {0, 0}, "Rollback": {0, 0},
	}
	if diff := cmp.Diff(want, summaries(t, reg, names)); diff != "" {
		t.Errorf("transition (count, sum) (-want +got):\n%s", diff)
	}
}

// TestApacheStateTimes: the time spent in each lifecycle state is recorded when that time
// ends as Apache's tracker ends it: entering a settled state ends every other state's time,
// entering UPGRADING every state's but its own and the state it came from.
func TestApacheStateTimes(t *testing.T) {
	reg, at := lifecycleAt(t, flinkv1beta1.JobKindSessionJob)
	at(0, "CREATED")
	at(5, "CREATED")
	at(6, "UPGRADING") // CREATED is the state it came from: not ended
	at(20, "DEPLOYED")
	at(50, "DEPLOYED")
	at(60, "STABLE") // ends CREATED (5 s), UPGRADING (0 s: seen once), DEPLOYED (30 s)
	at(100, "STABLE")
	at(110, "UPGRADING") // STABLE is where it came from: nothing ends
	at(130, "UPGRADING")
	at(140, "SUSPENDED") // ends STABLE (60..100: 40 s), UPGRADING (110..130: 20 s)

	names := map[string]string{}
	for _, state := range LifecycleStates {
		names[state] = StateTimeMetric(flinkv1beta1.JobKindSessionJob, state)
	}
	got := summaries(t, reg, names)
	maps.DeleteFunc(got, func(_ string, v []float64) bool { return v[0] == 0 })
	want := map[string][]float64{"CREATED": {1, 5}, "UPGRADING": {2, 20}, "DEPLOYED": {1, 30}, "STABLE": {1, 40}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("state time (count, sum) (-want +got):\n%s", diff)
	}
}

// lifecycleAt returns a registry of new metrics and a function that records one resource of
// kind in a lifecycle state sec seconds after a fixed start.
func lifecycleAt(t *testing.T, kind flinkv1beta1.JobKind) (*prometheus.Registry, func(sec int, state string)) {
	t.Helper()
	reg, r := newRecorder(t, Pod{})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	key := types.NamespacedName{Namespace: "ns", Name: "a"}
	return reg, func(sec int, state string) {
		r.Observe(kind, key, ResourceState{Lifecycle: state}, t0.Add(time.Duration(sec)*time.Second))
	}
}

// newRecorder registers new metrics for the operator pod pod with a registry of their own.
func newRecorder(t *testing.T, pod Pod) (*prometheus.Registry, *Recorder) {
	t.Helper()
	reg := prometheus.NewRegistry()
	r, err := NewForPod(reg, pod)
	if err != nil {
		t.Fatal(err)
	}
	return reg, r
}

// summaries gathers the (sample count, sum) of the summary named names[k], by k.
func summaries(t *testing.T, reg *prometheus.Registry, names map[string]string) map[string][]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]float64{}
	for k, name := range names {
		for _, f := range families {
			if f.GetName() == name && len(f.GetMetric()) == 1 {
				s := f.GetMetric()[0].GetSummary()
				got[k] = []float64{float64(s.GetSampleCount()), s.GetSampleSum()}
			}
		}
	}
	return got
}

// wantValues checks that got holds each of want's series with its value.
func wantValues(t *testing.T, got, want map[string]float64) {
	t.Helper()
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
		}
	}
}

// TestApacheSnapshotBlueGreenAndUsage: FlinkStateSnapshot counts by type and state (from its
// first state on), FlinkBlueGreenDeployment counts by state and job status with its failures,
// and the namespace's FlinkDeployment resource usage; a namespace's zero gauges stay while a
// resource changes state, and go with its last resource (the failures counter, which only
// grows, stays).
func TestApacheSnapshotBlueGreenAndUsage(t *testing.T) {
	reg, r := newRecorder(t, Pod{Host: "h", Name: "op-0", Namespace: "op"})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sp, cp := types.NamespacedName{Namespace: "ns", Name: "sp"}, types.NamespacedName{Namespace: "ns", Name: "cp"}
	r.Observe(KindSnapshot, sp, ResourceState{Savepoint: true}, t0)
	r.Observe(KindSnapshot, sp, ResourceState{Savepoint: true, Lifecycle: "IN_PROGRESS"}, t0)
	r.Observe(KindSnapshot, sp, ResourceState{Savepoint: true, Lifecycle: "COMPLETED"}, t0)
	r.Observe(KindSnapshot, cp, ResourceState{Lifecycle: "FAILED"}, t0)
	bg := types.NamespacedName{Namespace: "ns", Name: "bg"}
	r.Observe(KindBlueGreen, bg, ResourceState{Lifecycle: "ACTIVE_BLUE", JobStatus: "RUNNING"}, t0)
	r.Observe(KindBlueGreen, bg, ResourceState{Lifecycle: "TRANSITIONING_TO_GREEN", JobStatus: "FAILING"}, t0)
	r.Observe(KindBlueGreen, bg, ResourceState{Lifecycle: "TRANSITIONING_TO_GREEN", JobStatus: "FAILING"}, t0) // still failing: one failure
	d1, d2 := types.NamespacedName{Namespace: "ns", Name: "d1"}, types.NamespacedName{Namespace: "ns", Name: "d2"}
	r.Observe(flinkv1beta1.JobKindDeployment, d1, ResourceState{Lifecycle: "STABLE", CPU: 1.5, Memory: 2 << 30}, t0)
	r.Observe(flinkv1beta1.JobKindDeployment, d2, ResourceState{Lifecycle: "STABLE", CPU: 0.5, Memory: 1 << 30}, t0)
	r.Observe(flinkv1beta1.JobKindDeployment, d1, ResourceState{Lifecycle: "UPGRADING", CPU: 2, Memory: 2 << 30}, t0)

	l := func(kind string) string {
		return `{host="h",name="op-0",namespace="op",resourcens="ns",resourcetype="` + kind + `"}`
	}
	got := gatherValues(t, reg, NamespacePrefix)
	want := map[string]float64{
		NamespacePrefix + "Savepoint_Count" + l("FlinkStateSnapshot"):                                   1,
		NamespacePrefix + "Savepoint_State_COMPLETED_Count" + l("FlinkStateSnapshot"):                   1,
		NamespacePrefix + "Savepoint_State_IN_PROGRESS_Count" + l("FlinkStateSnapshot"):                 0,
		NamespacePrefix + "Checkpoint_Count" + l("FlinkStateSnapshot"):                                  1,
		NamespacePrefix + "Checkpoint_State_FAILED_Count" + l("FlinkStateSnapshot"):                     1,
		NamespacePrefix + "Checkpoint_State_ABANDONED_Count" + l("FlinkStateSnapshot"):                  0,
		NamespacePrefix + "Count" + l("FlinkBlueGreenDeployment"):                                       1,
		NamespacePrefix + "BlueGreenState_TRANSITIONING_TO_GREEN_Count" + l("FlinkBlueGreenDeployment"): 1,
		NamespacePrefix + "BlueGreenState_ACTIVE_BLUE_Count" + l("FlinkBlueGreenDeployment"):            0,
		NamespacePrefix + "JobStatus_FAILING_Count" + l("FlinkBlueGreenDeployment"):                     1,
		NamespacePrefix + "JobStatus_RUNNING_Count" + l("FlinkBlueGreenDeployment"):                     0,
		NamespacePrefix + "Failures" + l("FlinkBlueGreenDeployment"):                                    1,
		NamespacePrefix + "ResourceUsage_Cpu" + l("FlinkDeployment"):                                    2.5,
		NamespacePrefix + "ResourceUsage_Memory" + l("FlinkDeployment"):                                 3 << 30,
		NamespacePrefix + "Lifecycle_State_STABLE_Count" + l("FlinkDeployment"):                         1,
		NamespacePrefix + "Lifecycle_State_CREATED_Count" + l("FlinkDeployment"):                        0,
		NamespacePrefix + "JmDeploymentStatus_MISSING_Count" + l("FlinkDeployment"):                     0,
	}
	wantValues(t, got, want)
	r.Forget(KindSnapshot, sp)
	r.Forget(KindSnapshot, cp)
	r.Forget(KindBlueGreen, bg)
	for k, v := range gatherValues(t, reg, NamespacePrefix) {
		switch {
		case strings.HasPrefix(k, NamespacePrefix+"Failures{"):
			if v != 1 {
				t.Errorf("the failures counter went back to %v with the last blue/green deployment", v)
			}
		case strings.Contains(k, "FlinkStateSnapshot") || strings.Contains(k, "FlinkBlueGreenDeployment"):
			t.Errorf("the namespace's snapshots and blue/green deployments are gone, its gauge %s stays", k)
		}
	}
}

func TestUsage(t *testing.T) {
	for in, want := range map[[2]string][2]float64{
		{"2.5", "1073741824"}: {2.5, 1 << 30},
		{"", ""}:              {0, 0},
		{"NaN", "-1"}:         {0, 0},
		{"+Inf", "x"}:         {0, 0},
		{"-3", "12"}:          {0, 12},
	} {
		cpu, mem := Usage(map[string]string{flinkv1beta1.ClusterInfoTotalCPU: in[0], flinkv1beta1.ClusterInfoTotalMemory: in[1]})
		if got := [2]float64{cpu, float64(mem)}; got != want {
			t.Errorf("Usage(%q) = %v, want %v", in, got, want)
		}
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
