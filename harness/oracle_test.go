package harness

import (
	"context"
	"strings"
	"testing"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

// TestCheckerJudgesFreshStartsByTheUsersSpec: an operator that records a savepoint upgrade as
// one that restores nothing (a bug: its status says the user asked for empty state, and it
// starts the job from empty state) is caught, because the checker reads what the user asked
// for from the spec, not from the operator's record; the same upgrade untouched passes.
func TestCheckerJudgesFreshStartsByTheUsersSpec(t *testing.T) {
	for _, tamper := range []bool{false, true} {
		w, c := checkedWorld(t, 3)
		d := savepointJob()
		if err := w.Apply(d); err != nil {
			t.Fatal(err)
		}
		stepUntil(t, w, c, "running", runningGen(1))
		_ = w.RunFor(30e9) // checkpoints to restore
		p := int32(4)
		d.Spec.Job.Parallelism = &p
		_ = w.Apply(d)
		stepUntil(t, w, c, "upgrading", func(d *flinkv1beta1.FlinkDeployment) bool {
			return d.Status.ReconciliationStatus.State == flinkv1beta1.ReconciliationUpgrading
		})
		if tamper {
			cur, _ := w.Get("job")
			r, err := decide.ParseReconciledSpec(cur.Status.ReconciliationStatus.LastReconciledSpec)
			if err != nil || r == nil {
				t.Fatalf("reconciled spec %v: %v", r, err)
			}
			r.Metadata.Restore = decide.RestoreNone
			cur.Status.ReconciliationStatus.LastReconciledSpec = r.Encode()
			if err := w.Client.Status().Update(context.Background(), cur); err != nil {
				t.Fatal(err)
			}
		}
		v := stepUntil(t, w, c, "running the upgrade", runningGen(2))
		found := strings.Contains(strings.Join(v, "\n"), "invariant 6")
		if found != tamper {
			t.Errorf("tamper=%v: violations %v", tamper, v)
		}
	}
}
