package chaos_test

import (
	"context"
	"errors"
	"maps"
	"net"
	"net/http"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/chaos"
	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/harness"
)

// running starts the demo deployment in a fresh world and runs it for a while.
func running(t *testing.T) *harness.World {
	t.Helper()
	w, err := harness.NewWorld(3)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Apply(harness.DemoDeployment()); err != nil {
		t.Fatal(err)
	}
	if err := w.RunFor(45 * time.Second); err != nil {
		t.Fatal(err)
	}
	var cms corev1.ConfigMapList
	_ = w.Client.List(context.Background(), &cms, client.InNamespace(w.Namespace), client.MatchingLabels{"configmap-type": "high-availability"})
	if len(cms.Items) == 0 {
		t.Fatal("the running job has no HA metadata to begin with")
	}
	return w
}

// TestFaultsTakeEffect applies every fault class and checks its effect on the world.
func TestFaultsTakeEffect(t *testing.T) {
	cases := map[string]faultCase{
		"a JobManager crash restarts the job from HA": {chaos.JobManagerCrash{}, func(t *testing.T, w *harness.World) {
			t.Helper()
			w.Cluster("demo", func(c *fakeflink.Cluster) {
				s := c.Starts()
				if len(s) != 2 || s[1].RestorePath == "" || s[1].JobID != s[0].JobID || s[1].Offset == 0 {
					t.Errorf("starts %+v, want the first run and an HA recovery of the same job from a checkpoint", s)
				}
			})
		}},
		"a lost TaskManager fails the job over": {chaos.TaskManagerLoss{}, func(t *testing.T, w *harness.World) {
			t.Helper()
			w.Cluster("demo", func(c *fakeflink.Cluster) {
				if c.Jobs()[0].Status == fakeflink.StatusRunning {
					t.Error("the job kept running without its TaskManager")
				}
			})
		}},
		"a failed job restarts": {chaos.JobFailure{}, func(t *testing.T, w *harness.World) {
			t.Helper()
			w.Cluster("demo", func(c *fakeflink.Cluster) {
				if c.Jobs()[0].Restarts() != 1 {
					t.Errorf("restarts %d, want 1", c.Jobs()[0].Restarts())
				}
			})
		}},
		"HA metadata loss deletes the HA ConfigMaps": {chaos.HAMetadataLoss{}, func(t *testing.T, w *harness.World) {
			t.Helper()
			var cms corev1.ConfigMapList
			_ = w.Client.List(context.Background(), &cms, client.InNamespace(w.Namespace), client.MatchingLabels{"configmap-type": "high-availability"})
			if len(cms.Items) != 0 {
				t.Errorf("%d HA ConfigMaps left", len(cms.Items))
			}
		}},
		"a savepoint failure fails the next savepoint": {chaos.SavepointFailure{Count: 1}, func(t *testing.T, w *harness.World) {
			t.Helper()
			triggerSavepoint(w, 20*time.Second)
			failed := false
			for _, e := range w.Events() {
				failed = failed || (e.Type == "Warning" && e.Reason == "SavepointError")
			}
			if !failed {
				t.Error("no SavepointError event")
			}
		}},
		"a REST outage answers 503": {chaos.RESTOutage{For: time.Minute}, func(t *testing.T, w *harness.World) {
			t.Helper()
			w.Cluster("demo", func(c *fakeflink.Cluster) {
				if c.RESTState() != fakeflink.RESTUnavailable {
					t.Errorf("REST state %v during the outage", c.RESTState())
				}
			})
		}},
		"checkpoint failures end after their time": {chaos.CheckpointFailure{For: 30 * time.Second}, func(t *testing.T, w *harness.World) {
			t.Helper()
			var before int
			w.Cluster("demo", func(c *fakeflink.Cluster) { before = len(c.Jobs()[0].Checkpoints()) })
			_ = w.RunFor(25 * time.Second)
			var during int
			w.Cluster("demo", func(c *fakeflink.Cluster) { during = len(c.Jobs()[0].Checkpoints()) })
			_ = w.RunFor(40 * time.Second)
			var after int
			w.Cluster("demo", func(c *fakeflink.Cluster) { after = len(c.Jobs()[0].Checkpoints()) })
			if during != before || after <= during {
				t.Errorf("checkpoints %d before, %d during, %d after the failure window", before, during, after)
			}
		}},
	}
	maps.Copy(cases, windowFaultCases())
	maps.Copy(cases, apiFaultCases())
	maps.Copy(cases, kubernetesFaultCases())
	maps.Copy(cases, operatorFaultCases())
	everyClassCovered(t, cases)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := running(t)
			if err := tc.fault.Apply(w, "demo"); err != nil {
				t.Fatal(err)
			}
			tc.check(t, w)
		})
	}
}

// faultCase is a fault and the check of its effect on a running world.
type faultCase struct {
	fault chaos.Fault
	check func(t *testing.T, w *harness.World)
}

// kubernetesFaultCases are faults on the Kubernetes objects the operator owns.
func kubernetesFaultCases() map[string]faultCase {
	return map[string]faultCase{
		"a deleted JobManager Deployment takes its JobManager down, and the operator brings it back": {chaos.JobManagerDeploymentLoss{}, func(t *testing.T, w *harness.World) {
			t.Helper()
			if w.Sim.Cluster(w.Namespace, "demo") != nil {
				t.Fatal("the JobManager still runs after its Deployment was deleted")
			}
			_ = w.RunFor(2 * time.Minute)
			if !traced(w, "RecoverDeployment") {
				t.Errorf("no RecoverDeployment in the trace:\n%s", w.Trace)
			}
			w.Cluster("demo", func(c *fakeflink.Cluster) {
				s := c.Starts()
				if len(s) != 1 || s[0].RestorePath == "" {
					t.Errorf("starts of the new JobManager %+v, want one HA recovery from a checkpoint", s)
				}
			})
		}},
	}
}

// windowFaultCases are the faults on pods and REST.
func windowFaultCases() map[string]faultCase {
	return map[string]faultCase{
		"refused TaskManager pods fail the job with NoResourceAvailableException after slot.request.timeout, then it runs again": {
			chaos.TaskManagerPodsRefused{For: 6 * time.Minute}, podsRefusedThenCreated,
		},
		"a crash-looping JobManager pod is down for the window, then recovers from HA": {
			chaos.JobManagerPodFailure{Reason: "CrashLoopBackOff", For: time.Minute}, podFailsThenRecovers("CrashLoopBackOff"),
		},
		"a JobManager pod whose image cannot be pulled is down for the window, then recovers from HA": {
			chaos.JobManagerPodFailure{Reason: "ImagePullBackOff", For: time.Minute}, podFailsThenRecovers("ImagePullBackOff"),
		},
		"a slow start keeps the next JobManager pod creating": {chaos.SlowStart{By: 90 * time.Second}, func(t *testing.T, w *harness.World) {
			t.Helper()
			d := harness.DemoDeployment()
			d.Spec.Image = "flink:1.20.1"
			_ = w.Apply(d)
			_ = w.RunFor(40 * time.Second)
			if r := podWaiting(t, w, "demo-0"); r != "ContainerCreating" {
				t.Errorf("new JobManager pod waiting reason %q, want ContainerCreating", r)
			}
			_ = w.RunFor(2 * time.Minute)
			if r := podWaiting(t, w, "demo-0"); r != "" {
				t.Errorf("JobManager pod still waiting (%s) after the delay", r)
			}
		}},
		"a REST timeout times requests out": {chaos.RESTTimeout{For: time.Minute}, func(t *testing.T, w *harness.World) {
			t.Helper()
			var ne net.Error
			if err := restCall(w); !errors.As(err, &ne) || !ne.Timeout() {
				t.Errorf("REST call during the fault: %v, want a timeout", err)
			}
		}},
		"a network partition refuses connections while the job runs": {chaos.NetworkPartition{For: time.Minute}, func(t *testing.T, w *harness.World) {
			t.Helper()
			if err := restCall(w); !errors.Is(err, syscall.ECONNREFUSED) {
				t.Errorf("REST call during the partition: %v, want connection refused", err)
			}
			w.Cluster("demo", func(c *fakeflink.Cluster) {
				if c.Jobs()[0].Status != fakeflink.StatusRunning {
					t.Errorf("job %s during the partition, want RUNNING", c.Jobs()[0].Status)
				}
			})
		}},
	}
}

// apiFaultCases are the faults on savepoints, the operator and the Kubernetes API.
func apiFaultCases() map[string]faultCase {
	return map[string]faultCase{
		"a hanging savepoint stays in progress for the window": {chaos.SavepointHang{For: time.Minute}, func(t *testing.T, w *harness.World) {
			t.Helper()
			triggerSavepoint(w, 30*time.Second)
			if got, _ := w.Get("demo"); got.Status.JobStatus.SavepointInfo == nil || got.Status.JobStatus.SavepointInfo.TriggerID == "" {
				t.Error("no savepoint pending during the hang")
			}
			_ = w.RunFor(time.Minute)
			if got, _ := w.Get("demo"); got.Status.JobStatus.SavepointInfo.LastSavepoint == nil {
				t.Error("the savepoint did not complete after the hang")
			}
		}},
		"an operator crash after a write restarts the operator": {chaos.OperatorCrashAfterWrite{K: 1}, func(t *testing.T, w *harness.World) {
			t.Helper()
			bumpParallelism(w)
			if !traced(w, "operator crashed") {
				t.Errorf("no crash in the trace:\n%s", w.Trace)
			}
		}},
		"API conflicts fail the operator's writes": {chaos.APIErrors{Code: 409, Count: 1}, func(t *testing.T, w *harness.World) {
			t.Helper()
			bumpParallelism(w)
			if !traced(w, "the object has been modified (simulated)") {
				t.Errorf("no conflict in the trace:\n%s", w.Trace)
			}
		}},
		"stale reads hold the operator until its cache shows its own write": {chaos.StaleReads{For: 20 * time.Second}, staleReadsHoldTheOperator},
		"a lagging Deployment informer hides the upgrade's new Deployments, yet nothing is reported missing": {chaos.InformerLag{Kind: "Deployment", For: time.Minute}, func(t *testing.T, w *harness.World) {
			t.Helper()
			bumpParallelism(w)
			_ = w.RunFor(2 * time.Minute)
			got, _ := w.Get("demo")
			if got.Status.JobStatus.State != "RUNNING" || got.Status.Error != "" || len(w.FalseAlarms()) > 0 {
				t.Errorf("job %s, error %q, false alarms %v; want RUNNING, none, none", got.Status.JobStatus.State, got.Status.Error, w.FalseAlarms())
			}
		}},
		"a trailing Deployment informer shows half a cluster's deletion, yet the upgrade deploys the cluster again": {chaos.InformerLag{Kind: "Deployment", For: time.Minute, Trail: 10 * time.Second}, func(t *testing.T, w *harness.World) {
			t.Helper()
			// A change of the job alone: the new JobManager Deployment is the old one's twin,
			// so only its absence tells the old one from it; in native mode (the demo's) Flink's
			// resource manager makes the TaskManager pods again, owned by the new one.
			d := harness.DemoDeployment()
			d.Spec.FlinkConfiguration.Set("pipeline.name", "renamed")
			_ = w.Apply(d)
			_ = w.RunFor(2 * time.Minute)
			got, _ := w.Get("demo")
			var pods corev1.PodList
			err := w.Client.List(context.Background(), &pods, client.InNamespace(w.Namespace), client.MatchingLabels{"app": "demo", "component": "taskmanager", "type": "flink-native-kubernetes"})
			if got.Status.JobStatus.State != "RUNNING" || got.Status.ObservedGeneration != got.Generation || err != nil || len(pods.Items) == 0 {
				t.Errorf("job %s at observed generation %d of %d, TaskManager pods %d (%v); want RUNNING at the new spec, with TaskManagers", got.Status.JobStatus.State, got.Status.ObservedGeneration, got.Generation, len(pods.Items), err)
			}
		}},
		"a lagging Pod informer delays readiness, then the job runs": {chaos.InformerLag{Kind: "Pod", For: time.Minute}, func(t *testing.T, w *harness.World) {
			t.Helper()
			bumpParallelism(w)
			_ = w.RunFor(2 * time.Minute)
			if got, _ := w.Get("demo"); got.Status.JobStatus.State != "RUNNING" || got.Status.ObservedGeneration != got.Generation {
				t.Errorf("job %s at observed generation %d of %d, want RUNNING at the new spec", got.Status.JobStatus.State, got.Status.ObservedGeneration, got.Generation)
			}
		}},
		"a missed watch event delays the reconcile to the next resync": {chaos.MissedWatchEvents{Count: 1}, func(t *testing.T, w *harness.World) {
			t.Helper()
			d := harness.DemoDeployment()
			d.Spec.Image = "flink:1.20.1"
			_ = w.Apply(d)
			got, _ := w.Get("demo")
			gen := got.Generation
			if !traced(w, "watch event missed") {
				t.Error("the watch event was not missed")
			}
			_ = w.RunFor(2 * time.Minute)
			if got, _ := w.Get("demo"); got.Status.ObservedGeneration != gen {
				t.Errorf("observedGeneration %d after the resync, want %d", got.Status.ObservedGeneration, gen)
			}
		}},
		"an unavailable API server fails every call, then the operator catches up": {chaos.APIUnavailable{For: time.Minute}, func(t *testing.T, w *harness.World) {
			t.Helper()
			d := harness.DemoDeployment()
			d.Spec.Image = "flink:1.20.1"
			_ = w.Apply(d)
			gen := d.Generation
			if got, _ := w.Get("demo"); got != nil {
				gen = got.Generation
			}
			_ = w.RunFor(50 * time.Second)
			if got, _ := w.Get("demo"); got.Status.ObservedGeneration == gen || !traced(w, "the API server is unavailable") {
				t.Errorf("observedGeneration %d during the outage (generation %d), or no 503 in the trace", got.Status.ObservedGeneration, gen)
			}
			_ = w.RunFor(2 * time.Minute)
			if got, _ := w.Get("demo"); got.Status.ObservedGeneration != gen || !traced(w, "watches re-list") {
				t.Errorf("observedGeneration %d after the API server came back, want %d", got.Status.ObservedGeneration, gen)
			}
		}},
	}
}

// podWaiting returns the waiting reason of a simulated pod ("" when running).
func podWaiting(t *testing.T, w *harness.World, name string) string {
	t.Helper()
	var pod corev1.Pod
	if err := w.Client.Get(context.Background(), client.ObjectKey{Namespace: w.Namespace, Name: name}, &pod); err != nil {
		t.Fatal(err)
	}
	if cs := pod.Status.ContainerStatuses; len(cs) == 1 && cs[0].State.Waiting != nil {
		return cs[0].State.Waiting.Reason
	}
	return ""
}

// restCall asks the demo's JobManager for its overview, the way the operator reaches it.
func restCall(w *harness.World) error {
	req, _ := http.NewRequest(http.MethodGet, "http://demo-rest.flink.svc:8081/overview", nil)
	resp, err := w.Sim.RoundTrip(req)
	if err == nil {
		_ = resp.Body.Close()
	}
	return err
}

// triggerSavepoint asks for a savepoint (savepointTriggerNonce: 1) and lets wait pass.
func triggerSavepoint(w *harness.World, wait time.Duration) {
	d := harness.DemoDeployment()
	n := int64(1)
	d.Spec.Job.SavepointTriggerNonce = &n
	_ = w.Apply(d)
	_ = w.RunFor(wait)
}

func bumpParallelism(w *harness.World) {
	d := harness.DemoDeployment()
	p := int32(3)
	d.Spec.Job.Parallelism = &p
	_ = w.Apply(d)
	_ = w.RunFor(20 * time.Second)
}

// staleReadsHoldTheOperator: with the operator's reads stale for 20s, the spec change is read
// fresh but the status written on it is not, and the operator waits for its cache instead of
// writing on the stale copy (which would conflict).
func staleReadsHoldTheOperator(t *testing.T, w *harness.World) {
	t.Helper()
	start := w.Now()
	bumpParallelism(w)
	_ = w.RunFor(time.Minute)
	if traced(w, "object was modified") {
		t.Errorf("a write on a stale copy conflicted:\n%s", w.Trace)
	}
	changed, next := firstTraced(w, "SpecChanged"), firstTraced(w, "SavepointTriggered")
	if changed.IsZero() || next.Sub(start) < 20*time.Second {
		t.Errorf("spec change seen at %s, the upgrade's next step at %s: want it after the 20s of stale reads\n%s", changed.Sub(start), next.Sub(start), w.Trace)
	}
}

// firstTraced is the time of the first trace entry containing text (zero: none).
func firstTraced(w *harness.World, text string) time.Time {
	for _, e := range w.Trace.Entries {
		if strings.Contains(e.Text, text) {
			return e.Time
		}
	}
	return time.Time{}
}

func traced(w *harness.World, text string) bool {
	for _, e := range w.Trace.Entries {
		if strings.Contains(e.Text, text) {
			return true
		}
	}
	return false
}

// TestParameterizedFaultsAreTunable: every fault class with a duration or a count takes it from
// a script through Tune (no switch elsewhere to forget), and Tune sets it.
func TestParameterizedFaultsAreTunable(t *testing.T) {
	p := chaos.Params{For: 7 * time.Minute, Trail: 7 * time.Minute, Count: 7, K: 7}
	for _, f := range chaos.Classes {
		v := reflect.ValueOf(f)
		var params []string
		for i := range v.NumField() {
			if v.Type().Field(i).Name == "Code" {
				continue // which HTTP status: the fault's identity (api-conflict, api-500), not a parameter
			}
			switch v.Field(i).Interface().(type) {
			case time.Duration, int:
				params = append(params, v.Type().Field(i).Name)
			}
		}
		if len(params) == 0 {
			continue
		}
		tun, ok := f.(chaos.Tunable)
		if !ok {
			t.Errorf("%s has parameters %v but is not chaos.Tunable", f.Name(), params)
			continue
		}
		tuned := reflect.ValueOf(tun.Tune(p))
		for _, name := range params {
			got := tuned.FieldByName(name).Interface()
			if got != any(7*time.Minute) && got != any(7) {
				t.Errorf("%s.Tune left %s at %v", f.Name(), name, got)
			}
		}
	}
}

// podFailsThenRecovers checks a JobManager pod failure of reason for a minute: the pod waits
// with reason during the window, and a JobManager recovered from HA runs after it.
func podFailsThenRecovers(reason string) func(t *testing.T, w *harness.World) {
	return func(t *testing.T, w *harness.World) {
		t.Helper()
		_ = w.RunFor(10 * time.Second)
		if r := podWaiting(t, w, "demo-0"); r != reason {
			t.Errorf("JobManager pod waiting reason %q during the fault, want %s", r, reason)
		}
		_ = w.RunFor(90 * time.Second)
		w.Cluster("demo", func(c *fakeflink.Cluster) {
			s := c.Starts()
			if !c.Up() || len(s) < 2 || s[len(s)-1].RestorePath == "" {
				t.Errorf("after the window: up %v, starts %+v; want a JobManager recovered from HA", c.Up(), s)
			}
		})
	}
}

// podsRefusedThenCreated checks a native cluster whose TaskManager pods the API refuses: the
// job waits for its slots, fails with NoResourceAvailableException after 5 minutes (a
// JobException Warning), and runs again once the pods are created.
func podsRefusedThenCreated(t *testing.T, w *harness.World) {
	t.Helper()
	job := func() (st fakeflink.JobStatus, exceptions []string) {
		w.Cluster("demo", func(c *fakeflink.Cluster) {
			j := c.Jobs()[0]
			st = j.Status
			for _, e := range j.Exceptions {
				exceptions = append(exceptions, e.Name)
			}
		})
		return st, exceptions
	}
	if err := w.RunFor(time.Minute); err != nil {
		t.Fatal(err)
	}
	if st, _ := job(); st == fakeflink.StatusRunning {
		t.Fatal("the job runs without the TaskManager pod the API refused")
	}
	if err := w.RunFor(5 * time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, ex := job(); len(ex) == 0 || ex[len(ex)-1] != fakeflink.NoResourceClass {
		t.Errorf("exceptions %v after 6 minutes without slots, want NoResourceAvailableException last", ex)
	}
	warned := false
	for _, e := range w.Events() {
		warned = warned || (e.Type == "Warning" && e.Reason == "JobException" && strings.Contains(e.Message, "NoResourceAvailableException"))
	}
	if !warned {
		t.Errorf("no JobException Warning naming NoResourceAvailableException in %v", w.Events())
	}
	if err := w.RunFor(2 * time.Minute); err != nil {
		t.Fatal(err)
	}
	if st, _ := job(); st != fakeflink.StatusRunning {
		t.Errorf("job %s once the API takes pods again, want RUNNING", st)
	}
}

// operatorFaultCases are faults of the API server and the operator's process.
func operatorFaultCases() map[string]faultCase {
	return map[string]faultCase{
		"API server errors fail the operator's writes": {chaos.APIErrors{Code: 500, Count: 1}, func(t *testing.T, w *harness.World) {
			t.Helper()
			bumpParallelism(w)
			if !traced(w, "etcdserver: request timed out (simulated)") {
				t.Errorf("no server error in the trace:\n%s", w.Trace)
			}
		}},
		"an operator restart reconciles every resource at once": {chaos.OperatorRestart{}, func(t *testing.T, w *harness.World) {
			t.Helper()
			// The same world without the restart, for the same second, as the control.
			control := running(t)
			before, controlBefore := w.Reconciles, control.Reconciles
			_ = w.RunFor(time.Second)
			_ = control.RunFor(time.Second)
			if got, idle := w.Reconciles-before, control.Reconciles-controlBefore; got <= idle {
				t.Errorf("the restarted operator reconciled %d times in a second, as many as one not restarted (%d)", got, idle)
			}
		}},
		"a lagging ConfigMap informer delays nothing the operator must see, and the job runs": {chaos.InformerLag{Kind: "ConfigMap", For: time.Minute}, func(t *testing.T, w *harness.World) {
			t.Helper()
			bumpParallelism(w)
			_ = w.RunFor(2 * time.Minute)
			if got, _ := w.Get("demo"); got.Status.JobStatus.State != "RUNNING" || got.Status.ObservedGeneration != got.Generation || len(w.FalseAlarms()) > 0 {
				t.Errorf("job %s at observed generation %d of %d, false alarms %v; want RUNNING at the new spec, none", got.Status.JobStatus.State, got.Status.ObservedGeneration, got.Generation, w.FalseAlarms())
			}
		}},
	}
}

// everyClassCovered fails for a class of chaos.Classes without a case: a new class cannot land
// without a check of its effect.
func everyClassCovered(t *testing.T, cases map[string]faultCase) {
	t.Helper()
	covered := map[string]bool{}
	for _, tc := range cases {
		covered[tc.fault.Name()] = true
	}
	for _, f := range chaos.Classes {
		if !covered[f.Name()] {
			t.Errorf("fault class %s has no case here", f.Name())
		}
	}
}
