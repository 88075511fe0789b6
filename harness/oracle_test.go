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

// TestAskedForFreshState: what the user asked of a deploy is read from the specs by
// generation: a rollback restores as its failed generation asks; a nonce change counts against
// the deploy before (a rollback's: its failed generation); a spec never seen cannot be judged.
func TestAskedForFreshState(t *testing.T) {
	spec := func(mode flinkv1beta1.UpgradeMode, nonce int64) *flinkv1beta1.FlinkDeploymentSpec {
		return &flinkv1beta1.FlinkDeploymentSpec{Job: &flinkv1beta1.JobSpec{UpgradeMode: mode, SavepointRedeployNonce: &nonce}}
	}
	c := NewChecker(nil)
	c.specs["job"] = &specHistory{byGen: map[int64]*flinkv1beta1.FlinkDeploymentSpec{
		1: spec(flinkv1beta1.UpgradeModeSavepoint, 0),
		2: spec(flinkv1beta1.UpgradeModeStateless, 0),
		3: spec(flinkv1beta1.UpgradeModeSavepoint, 0),
		4: spec(flinkv1beta1.UpgradeModeSavepoint, 1),
		5: spec(flinkv1beta1.UpgradeModeSavepoint, 0),
	}}
	for name, tc := range map[string]struct {
		key, before string
		want        bool
	}{
		"a savepoint upgrade":                      {"3", "1", false},
		"a stateless generation":                   {"2", "1", true},
		"a rollback from a stateless generation":   {"1/rollback-2", "2", true},
		"a rollback from a savepoint generation":   {"1/rollback-3", "3", false},
		"a changed nonce":                          {"4", "3", true},
		"a nonce changed and back in between":      {"5", "3", true},
		"after a rollback, against the failed one": {"5", "1/rollback-4", true},
		"a generation never seen":                  {"9", "3", true},
		"a restart of the same generation":         {"3/restart-1", "3", false},
	} {
		t.Run(name, func(t *testing.T) {
			if got := c.askedForFreshState("job", tc.key, tc.before); got != tc.want {
				t.Errorf("askedForFreshState(%s after %s) = %v, want %v", tc.key, tc.before, got, tc.want)
			}
		})
	}
}
