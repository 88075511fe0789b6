package chaos_test

import (
	"context"
	"math/rand"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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
	_ = w.Client.List(context.Background(), &cms, client.InNamespace(harness.Namespace), client.MatchingLabels{"configmap-type": "high-availability"})
	if len(cms.Items) == 0 {
		t.Fatal("the running job has no HA metadata to begin with")
	}
	return w
}

// TestFaultsTakeEffect applies every fault class and checks its effect on the world.
func TestFaultsTakeEffect(t *testing.T) {
	cases := map[string]struct {
		fault chaos.Fault
		check func(t *testing.T, w *harness.World)
	}{
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
			_ = w.Client.List(context.Background(), &cms, client.InNamespace(harness.Namespace), client.MatchingLabels{"configmap-type": "high-availability"})
			if len(cms.Items) != 0 {
				t.Errorf("%d HA ConfigMaps left", len(cms.Items))
			}
		}},
		"a savepoint failure fails the next savepoint": {chaos.SavepointFailure{Count: 1}, func(t *testing.T, w *harness.World) {
			t.Helper()
			d := harness.DemoDeployment()
			n := int64(1)
			d.Spec.Job.SavepointTriggerNonce = &n
			_ = w.Apply(d)
			_ = w.RunFor(20 * time.Second)
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

func TestRandomPlanIsDeterministic(t *testing.T) {
	a := chaos.RandomPlan(rand.New(rand.NewSource(9)), 20, time.Minute, chaos.Classes)
	b := chaos.RandomPlan(rand.New(rand.NewSource(9)), 20, time.Minute, chaos.Classes)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("same seed, different plans (-a +b):\n%s", diff)
	}
	seen := map[string]bool{}
	for _, s := range chaos.RandomPlan(rand.New(rand.NewSource(1)), 200, time.Minute, chaos.Classes) {
		seen[s.Fault.Name()] = true
	}
	if len(seen) != len(chaos.Classes) {
		t.Errorf("200 draws covered %d of %d fault classes", len(seen), len(chaos.Classes))
	}
}
