package scenarios

import (
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/flinkop/flinkop/harness"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// restartCase drives a resource into a non-terminal state, where the operator is restarted.
type restartCase struct {
	// setup changes the base spec before the first apply.
	setup func(*flinkv1beta1.FlinkDeploymentSpec)
	// trigger is the user's action that leads into the state (on the running resource).
	trigger func(t *testing.T, w *harness.World, spec *flinkv1beta1.FlinkDeploymentSpec)
	// in reports whether the resource is in the state.
	in func(d *flinkv1beta1.FlinkDeployment) bool
	// deleted is set when the resource must end deleted.
	deleted bool
	// after, when set, checks the converged resource further.
	after func(d *flinkv1beta1.FlinkDeployment) string
}

// TestOperatorRestartInEveryState restarts the operator (new reconciler, nothing kept but
// the API's objects) in each non-terminal state and checks, with the invariants after every
// step, that the resource converges with no state regression, no double submit and no lost
// trigger.
func TestOperatorRestartInEveryState(t *testing.T) {
	apply := func(t *testing.T, w *harness.World, spec *flinkv1beta1.FlinkDeploymentSpec) {
		t.Helper()
		d := &flinkv1beta1.FlinkDeployment{Spec: *spec.DeepCopy()}
		d.Name = resource
		if err := w.Apply(d); err != nil {
			t.Fatal(err)
		}
	}
	parallelism := func(t *testing.T, w *harness.World, spec *flinkv1beta1.FlinkDeploymentSpec) {
		t.Helper()
		p := int32(3)
		spec.Job.Parallelism = &p
		apply(t, w, spec)
	}
	cases := map[string]restartCase{
		"UPGRADING (savepoint)": {
			trigger: parallelism,
			in: func(d *flinkv1beta1.FlinkDeployment) bool {
				return d.Status.ReconciliationStatus.State == flinkv1beta1.ReconciliationUpgrading
			},
		},
		"UPGRADING (last-state)": {
			setup:   func(s *flinkv1beta1.FlinkDeploymentSpec) { s.Job.UpgradeMode = flinkv1beta1.UpgradeModeLastState },
			trigger: parallelism,
			in: func(d *flinkv1beta1.FlinkDeployment) bool {
				return d.Status.ReconciliationStatus.State == flinkv1beta1.ReconciliationUpgrading
			},
		},
		"savepoint pending": {
			trigger: func(t *testing.T, w *harness.World, spec *flinkv1beta1.FlinkDeploymentSpec) {
				t.Helper()
				n := int64(1)
				spec.Job.SavepointTriggerNonce = &n
				apply(t, w, spec)
			},
			in: func(d *flinkv1beta1.FlinkDeployment) bool {
				sp := d.Status.JobStatus.SavepointInfo
				return sp != nil && sp.TriggerID != ""
			},
			after: func(d *flinkv1beta1.FlinkDeployment) string {
				// No lost trigger: the savepoint of nonce 1 completed and is recorded.
				sp := d.Status.JobStatus.SavepointInfo
				if sp == nil || sp.LastSavepoint == nil || sp.LastSavepoint.TriggerNonce == nil || *sp.LastSavepoint.TriggerNonce != 1 {
					return fmt.Sprintf("the savepoint of nonce 1 is not recorded: %+v", sp)
				}
				return ""
			},
		},
		"ROLLING_BACK": {
			setup: func(s *flinkv1beta1.FlinkDeploymentSpec) {
				s.Job.UpgradeMode = flinkv1beta1.UpgradeModeLastState
				s.FlinkConfiguration.Set("kubernetes.operator.deployment.rollback.enabled", "true")
				s.FlinkConfiguration.Set("kubernetes.operator.deployment.readiness.timeout", "1m")
			},
			trigger: func(t *testing.T, w *harness.World, spec *flinkv1beta1.FlinkDeploymentSpec) {
				t.Helper()
				spec.Image = "flink:missing-tag"
				apply(t, w, spec)
			},
			in: func(d *flinkv1beta1.FlinkDeployment) bool {
				return d.Status.ReconciliationStatus.State == flinkv1beta1.ReconciliationRollingBack
			},
		},
		"DELETING": {
			trigger: func(t *testing.T, w *harness.World, _ *flinkv1beta1.FlinkDeploymentSpec) {
				t.Helper()
				if err := w.Delete(resource); err != nil {
					t.Fatal(err)
				}
			},
			in:      func(d *flinkv1beta1.FlinkDeployment) bool { return d.DeletionTimestamp != nil },
			deleted: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			// Restart at the first step in the state, and at each later step while it lasts.
			for k := 0; ; k++ {
				if !restartAt(t, tc, k, apply) {
					if k == 0 {
						t.Fatal("the resource never reached the state")
					}
					t.Logf("restarted at each of %d steps in the state", k)
					return
				}
			}
		})
	}
}

// restartAt runs one world: it triggers the case, restarts the operator at the k-th step spent
// in the state, and checks the outcome. It reports false when the state ended before step k.
func restartAt(t *testing.T, tc restartCase, k int, apply func(*testing.T, *harness.World, *flinkv1beta1.FlinkDeploymentSpec)) bool {
	t.Helper()
	w, err := harness.NewWorld(int64(7 + k))
	if err != nil {
		t.Fatal(err)
	}
	checker := harness.NewChecker(w)
	spec := BaseSpec()
	if tc.setup != nil {
		tc.setup(&spec)
	}
	apply(t, w, &spec)
	if err := checker.StepUntil(w.Now().Add(time.Minute), nil, resource); err != nil {
		t.Fatal(err)
	}
	tc.trigger(t, w, &spec)
	seen := 0
	inState := func() bool {
		d, err := w.Get(resource)
		if err == nil && tc.in(d) {
			seen++
		}
		return seen > k
	}
	if err := checker.StepUntil(w.Now().Add(5*time.Minute), inState, resource); err != nil {
		t.Fatalf("restart at step %d: %v\n%s", k, err, w.Trace)
	}
	if seen <= k {
		return false
	}
	w.Trace.Add(w.Now(), "fault", resource, fmt.Sprintf("operator restarted (step %d in the state)", k))
	w.RestartOperator()
	done := func() bool {
		d, err := w.Get(resource)
		if tc.deleted {
			return apierrors.IsNotFound(err)
		}
		ok, _ := checker.Converged(resource)
		return ok && err == nil && d.Status.Error == ""
	}
	if err := checker.StepUntil(w.Now().Add(Settle), done, resource); err != nil {
		t.Fatalf("restart at step %d: %v\n%s", k, err, w.Trace)
	}
	d, err := w.Get(resource)
	switch {
	case tc.deleted && !apierrors.IsNotFound(err):
		t.Fatalf("restart at step %d: not deleted (%v)\n%s", k, err, w.Trace)
	case !tc.deleted && err != nil:
		t.Fatal(err)
	case !tc.deleted:
		if ok, why := checker.Converged(resource); !ok || d.Status.Error != "" {
			t.Fatalf("restart at step %d: not converged: %s %s\n%s", k, why, d.Status.Error, w.Trace)
		}
		if tc.after != nil {
			if why := tc.after(d); why != "" {
				t.Fatalf("restart at step %d: %s\n%s", k, why, w.Trace)
			}
		}
	}
	return true
}
