package harness

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/fakeflink/kuberm"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestNativeSessionClusterGrowsForItsJobs: a session cluster in native mode without
// taskManager.replicas (Apache's basic session example) gets from Flink's resource manager as
// many TaskManager pods as its session jobs' parallelism needs (4 + 2 slots, one slot each:
// 6), so both jobs run rather than wait in CREATED; when one job goes, the idle TaskManagers
// are released (resourcemanager.taskmanager-timeout) down to what the other needs.
func TestNativeSessionClusterGrowsForItsJobs(t *testing.T) {
	w, err := NewWorld(7)
	if err != nil {
		t.Fatal(err)
	}
	c := NewChecker(w)
	c.WatchSessionCluster("session")
	cluster := &flinkv1beta1.FlinkDeployment{Spec: flinkv1beta1.FlinkDeploymentSpec{
		Image: "flink:1.20", FlinkVersion: "v1_20", Mode: flinkv1beta1.DeploymentModeNative,
	}}
	cluster.Name = "session"
	if err := w.Apply(cluster); err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]int32{"wide": 4, "narrow": 2} {
		j := &flinkv1beta1.FlinkSessionJob{Spec: flinkv1beta1.FlinkSessionJobSpec{
			DeploymentName: "session",
			Job:            &flinkv1beta1.JobSpec{JarURI: "https://repo.example.com/jobs/etl.jar", Parallelism: &p, UpgradeMode: flinkv1beta1.UpgradeModeStateless},
		}}
		j.Name = name
		if err := w.ApplySessionJob(j); err != nil {
			t.Fatal(err)
		}
	}
	running := func(names ...string) func() bool {
		return func() bool {
			for _, n := range names {
				if j, err := w.GetSessionJob(n); err != nil || j.Status.JobStatus.State != flinkv1beta1.JobStatusRunning {
					return false
				}
			}
			return true
		}
	}
	if err := c.StepUntil(w.Now().Add(5*time.Minute), running("wide", "narrow")); err != nil {
		t.Fatalf("%v\n%s", err, w.Trace)
	}
	if !running("wide", "narrow")() {
		t.Fatalf("the session jobs do not both run\n%s", w.Trace)
	}
	if got := taskManagers(t, w); got != 6 {
		t.Errorf("%d TaskManagers for 6 slots of one slot each, want 6", got)
	}
	if err := w.DeleteSessionJob("wide"); err != nil {
		t.Fatal(err)
	}
	if err := c.StepUntil(w.Now().Add(3*time.Minute), func() bool { return taskManagers(t, w) == 2 }); err != nil {
		t.Fatalf("%v\n%s", err, w.Trace)
	}
	if got := taskManagers(t, w); got != 2 || !running("narrow")() {
		t.Errorf("after the wide job went: %d TaskManagers (want 2), narrow running %v", got, running("narrow")())
	}
}

// taskManagers counts the session cluster's TaskManager pods, which Flink's native resource
// manager made (there is no TaskManager Deployment in native mode).
func taskManagers(t *testing.T, w *World) int {
	t.Helper()
	var pods corev1.PodList
	sel := client.MatchingLabels{kuberm.LabelApp: "session", kuberm.LabelType: kuberm.TypeNative, kuberm.LabelComponent: kuberm.ComponentTaskManager}
	if err := w.Client.List(t.Context(), &pods, client.InNamespace(w.Namespace), sel); err != nil {
		t.Fatal(err)
	}
	var dep appsv1.Deployment
	if err := w.Client.Get(t.Context(), client.ObjectKey{Namespace: w.Namespace, Name: act.TaskManagerName("session")}, &dep); err == nil {
		t.Fatalf("a native session cluster got a TaskManager Deployment")
	}
	return len(pods.Items)
}
