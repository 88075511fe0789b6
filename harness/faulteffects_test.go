package harness

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/chaos"
	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/harness/fixtures"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestFaultEffectsDeclared holds every fault class's declared effects (chaos.Expected, which
// the checker reads) to what it does to a running last-state deployment with HA: a class
// restarts the JobManager without an operator deploy exactly when it declares
// RestartsJobManager, and deletes the HA metadata exactly when it declares LosesHAMetadata.
// A new class that forgets its declaration fails here, not as a false violation in a sweep.
func TestFaultEffectsDeclared(t *testing.T) {
	for _, f := range chaos.Classes {
		t.Run(f.Name(), func(t *testing.T) {
			w, c := checkedWorld(t, 5)
			if err := w.Apply(fixtures.StatefulDeployment("", "job", flinkv1beta1.UpgradeModeLastState)); err != nil {
				t.Fatal(err)
			}
			if v := stepUntil(t, w, c, "running", runningGen(1)); len(v) > 0 {
				t.Fatalf("violations on a plain deploy: %v", v)
			}
			if err := w.RunFor(30 * time.Second); err != nil { // HA metadata and checkpoints
				t.Fatal(err)
			}
			haConfigMaps := func() int {
				var cms corev1.ConfigMapList
				_ = w.Client.List(context.Background(), &cms, client.InNamespace(w.Namespace), client.MatchingLabels{"configmap-type": "high-availability"})
				return len(cms.Items)
			}
			if haConfigMaps() == 0 {
				t.Fatal("no HA metadata before the fault")
			}
			// A restarted JobManager is a new pod (a new incarnation), or a new JobManager
			// process in the same pod, which starts the job again from HA.
			jobStarts := func() (n int) {
				w.Cluster("job", func(cl *fakeflink.Cluster) { n = len(cl.Starts()) })
				return n
			}
			before, starts := w.Sim.Incarnation(w.Namespace, act.JobManagerName("job")), jobStarts()
			if err := w.apply(f, "job"); err != nil {
				t.Fatal(err)
			}
			haLost := haConfigMaps() == 0
			if err := w.RunFor(3 * time.Minute); err != nil {
				t.Fatal(err)
			}
			restarted := w.Sim.Incarnation(w.Namespace, act.JobManagerName("job")) != before || jobStarts() != starts
			var declared chaos.Effect
			if e, ok := f.(chaos.Expected); ok {
				declared = e.Effects()
			}
			if got, want := restarted, declared&chaos.RestartsJobManager != 0; got != want {
				t.Errorf("the JobManager restarted: %v; declared RestartsJobManager: %v\n%s", got, want, w.Trace)
			}
			if got, want := haLost, declared&chaos.LosesHAMetadata != 0; got != want {
				t.Errorf("the HA metadata went: %v; declared LosesHAMetadata: %v", got, want)
			}
		})
	}
}
