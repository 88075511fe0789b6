package fakeflink

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// workloadConf is a stateful adaptive job whose source (1,000 records/s a subtask) is slower
// than its sink (2,000), fed 3,000 records/s.
func workloadConf(kv ...string) map[string]string {
	return statefulConf(append([]string{
		"jobmanager.scheduler", "adaptive", "fakeflink.workload.input", "constant:3000",
		"fakeflink.workload.capacities", "1000,2000", "fakeflink.workload.restart-time", "5s",
	}, kv...)...)
}

func TestDefaultMaxParallelism(t *testing.T) {
	for p, want := range map[int]int{1: 128, 85: 128, 86: 256, 100: 256, 200: 512, 30000: 32768} {
		if got := DefaultMaxParallelism(p); got != want {
			t.Errorf("DefaultMaxParallelism(%d) = %d, want %d", p, got, want)
		}
	}
}

func TestWorkloadJobServesItsModel(t *testing.T) {
	w := newWorld(t)
	c := w.app("wl", workloadConf())
	c.RegisterTaskManager("wl-tm-2", 2)
	w.advance(2*time.Second, c)
	j := onlyJob(t, c)
	wantStatus(t, j, StatusRunning)
	vs := j.Vertices()
	names := []string{vs[0].Name, vs[1].Name}
	if diff := cmp.Diff([]string{"Source: fake-source", "Sink: fake-sink"}, names); diff != "" {
		t.Errorf("vertex names (-want +got):\n%s", diff)
	}
	if vs[0].Parallelism != 2 || vs[0].MaxParallelism != 128 {
		t.Errorf("source %+v, want parallelism 2 of 128", vs[0])
	}
	w.advance(20*time.Second, c)
	m := j.VertexMetrics(w.clock.Now())
	if m[0].BusyTimeMsPerSecond != 1000 || m[1].BusyTimeMsPerSecond != 500 {
		t.Errorf("busy source %v sink %v, want 1000 and 500 (2,000 of 2,000 and of 4,000 records/s)", m[0].BusyTimeMsPerSecond, m[1].BusyTimeMsPerSecond)
	}
	// The input began when the job first ran: 20 s at 3,000, less 15 s (after the 5 s
	// restart) processed at 2,000.
	backlog := m[0].PendingRecords
	if want := 20*3000.0 - 15*2000; backlog != want {
		t.Errorf("backlog %v, want %v", backlog, want)
	}

	// Rescaled in place to 4 source subtasks, the job processes 4,000 records/s after its
	// restart and works the backlog off.
	req := map[string][2]int{vs[0].ID: {1, 4}, vs[1].ID: {1, 2}}
	if err := c.SetResourceRequirements(j.ID, req); err != nil {
		t.Fatal(err)
	}
	w.advance(3*time.Minute, c)
	wantStatus(t, j, StatusRunning)
	if got := j.Vertices()[0].Parallelism; got != 4 {
		t.Errorf("source parallelism %d after the rescale, want 4", got)
	}
	if m := j.VertexMetrics(w.clock.Now()); m[0].PendingRecords != 0 || m[0].NumRecordsOutPerSecond != 3000 {
		t.Errorf("after the rescale: backlog %v at %v records/s, want 0 at 3000", m[0].PendingRecords, m[0].NumRecordsOutPerSecond)
	}
	if err := c.SetResourceRequirements(j.ID, map[string][2]int{vs[0].ID: {1, 4}}); err == nil {
		t.Error("requirements without the sink accepted")
	}
	if err := c.SetResourceRequirements(j.ID, map[string][2]int{vs[0].ID: {1, 129}, vs[1].ID: {1, 2}}); err == nil {
		t.Error("requirements above the max parallelism accepted")
	}
}

func TestVertexIDsAreTheProgramsAndOverridesApply(t *testing.T) {
	w := newWorld(t)
	a := onlyJob(t, w.app("a", workloadConf()))
	b := onlyJob(t, w.app("b", workloadConf()))
	if a.Vertices()[0].ID != b.Vertices()[0].ID || a.ID == b.ID {
		t.Fatalf("two jobs of one program have vertex ids %s and %s", a.Vertices()[0].ID, b.Vertices()[0].ID)
	}
	sink := a.Vertices()[1].ID
	over := fmt.Sprintf("%s:3,%s:7", sink, strings.Repeat("f", 32))
	c := w.app("c", workloadConf(KeyParallelismOverrides, over))
	c.RegisterTaskManager("c-tm-2", 2)
	w.advance(3*time.Second, c)
	j := onlyJob(t, c)
	wantStatus(t, j, StatusRunning)
	got := []int{j.Vertices()[0].Parallelism, j.Vertices()[1].Parallelism, j.Parallelism()}
	if diff := cmp.Diff([]int{2, 3, 3}, got); diff != "" {
		t.Errorf("source, sink, slots (-want +got):\n%s", diff)
	}
	wantFailed(t, onlyJob(t, w.app("zero", workloadConf(KeyParallelismOverrides, sink+":zero"))), `For input string: "zero"`)
}

func TestParallelismAboveMaxParallelismFailsTheJob(t *testing.T) {
	w := newWorld(t)
	c := w.app("max", workloadConf(KeyMaxParallelism, "1"))
	wantFailed(t, onlyJob(t, c), "higher than the max parallelism (1)")
}

func TestSavepointCarriesTheInput(t *testing.T) {
	w := newWorld(t)
	c := w.app("sp", workloadConf())
	w.advance(30*time.Second, c)
	snap := w.stopWithSavepoint(c)
	if snap.InputBegan.IsZero() {
		t.Fatalf("savepoint %+v does not carry its input's start", snap)
	}
	// A minute later a new cluster restores it: the input kept arriving meanwhile.
	w.advance(time.Minute)
	c2 := w.app("sp2", workloadConf("execution.savepoint.path", snap.Path))
	w.advance(3*time.Second, c2)
	j2 := onlyJob(t, c2)
	wantStatus(t, j2, StatusRunning)
	if !j2.InputBegan().Equal(snap.InputBegan) {
		t.Errorf("restored input began %v, want %v", j2.InputBegan(), snap.InputBegan)
	}
	arrived := w.clock.Now().Sub(snap.InputBegan).Seconds() * 3000
	if got, want := j2.VertexMetrics(w.clock.Now())[0].PendingRecords, arrived-float64(snap.Offset); got != want {
		t.Errorf("backlog after the restore %v, want %v (all input since the savepoint)", got, want)
	}
}

// Overrides are read as Flink's Dispatcher reads them: only for the job's vertices (an unknown
// id's value is never parsed), and a bad value fails the job.
func TestOverridesAsFlinkReadsThem(t *testing.T) {
	w := newWorld(t)
	sink := onlyJob(t, w.app("ids", workloadConf())).Vertices()[1].ID
	for value, want := range map[string]string{
		sink + ":-1":    "",
		sink + ":0":     "The parallelism must be at least one, or -1 (unset).",
		sink + ":x":     `For input string: "x"`,
		sink + ":40000": "not in valid bounds (1..32768), found: 40000",
		"abc:x":         "",
	} {
		c := w.app("o-"+strings.NewReplacer(":", "-", sink, "sink").Replace(value), workloadConf(KeyParallelismOverrides, value))
		if j := onlyJob(t, c); want == "" && j.Status == StatusFailed {
			t.Errorf("%s: failed: %s", value, j.FailureCause)
		} else if want != "" {
			wantFailed(t, j, want)
		}
	}
	if _, err := ProgramFromConfig(workloadConf(KeyParallelismOverrides, "no-colon"), "local:///job.jar", "", nil); err == nil {
		t.Error("a map value without a colon accepted")
	}
}

func TestResourceRequirementsValidatedAsFlink(t *testing.T) {
	w := newWorld(t)
	c := w.app("req", workloadConf())
	w.advance(3*time.Second, c)
	j := onlyJob(t, c)
	src, sink := j.Vertices()[0].ID, j.Vertices()[1].ID
	for name, tc := range map[string]struct {
		req  map[string][2]int
		want string
	}{
		"a vertex missing":     {map[string][2]int{src: {1, 2}}, "The request is incomplete, missing job vertex [" + sink + "] resource requirements."},
		"an unknown vertex":    {map[string][2]int{src: {1, 2}, sink: {1, 2}, "ff": {1, 1}}, "Job vertex [ff] was not found in the JobGraph."},
		"zero":                 {map[string][2]int{src: {0, 2}, sink: {1, 2}}, "must be greater than zero"},
		"lower above upper":    {map[string][2]int{src: {3, 2}, sink: {1, 2}}, "is higher than the upper bound [2]"},
		"above the key groups": {map[string][2]int{src: {1, 129}, sink: {1, 2}}, "exceeds its maximum parallelism 128"},
		"-1 means the bounds":  {map[string][2]int{src: {-1, 2}, sink: {-1, 2}}, ""},
	} {
		err := c.SetResourceRequirements(j.ID, tc.req)
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", name, err, tc.want)
		}
	}
}

// A savepoint keeps its vertices' key groups: a job restoring it takes them when its max
// parallelism is Flink's default, must match them when configured, and may not run more
// subtasks than they are.
func TestRestoreKeepsKeyGroups(t *testing.T) {
	w := newWorld(t)
	c := w.app("kg", workloadConf())
	w.advance(3*time.Second, c)
	j := onlyJob(t, c)
	snap := w.stopWithSavepoint(c)
	sink := j.Vertices()[1].ID
	for name, tc := range map[string]struct {
		kv   []string
		want string
	}{
		"default, adopted":     {[]string{"parallelism.default", "100"}, ""},
		"configured, the same": {[]string{KeyMaxParallelism, "128"}, ""},
		"configured, another":  {[]string{KeyMaxParallelism, "256"}, "Max parallelism mismatch between checkpoint/savepoint state and new program"},
		"above the key groups": {[]string{KeyParallelismOverrides, sink + ":200"}, "The maximum parallelism (128) of the restored state is lower than the configured parallelism (200)"},
	} {
		t.Run(name, func(t *testing.T) {
			kv := append([]string{"execution.savepoint.path", snap.Path}, tc.kv...)
			r := onlyJob(t, w.app("kg-"+strings.ReplaceAll(name, " ", "-"), workloadConf(kv...)))
			if tc.want == "" {
				if r.Status == StatusFailed {
					t.Fatalf("failed: %s", r.FailureCause)
				}
				if got := r.Vertices()[0].MaxParallelism; got != 128 {
					t.Errorf("source max parallelism %d, want the state's 128", got)
				}
				return
			}
			wantFailed(t, r, tc.want)
		})
	}
}
