package harness

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestSessionStateJudgedByTheUsersSpec: a savepoint upgrade of a session job resumes its state.
// An operator that records the upgrade as one that restores nothing (its record in status
// tampered with as the upgrade begins) submits the new job from empty state: S2 fires, because
// it judges the start by the user's spec (savepoint mode, no redeploy nonce), not by the
// operator's record, which would have excused it.
func TestSessionStateJudgedByTheUsersSpec(t *testing.T) {
	for _, tamper := range []bool{false, true} {
		w, c := checkedWorld(t, 4)
		cluster := savepointJob()
		cluster.Spec.Job = nil
		j := sessionWithJob(t, w, c, cluster, flinkv1beta1.UpgradeModeSavepoint)
		sessionJobIs := func(cond func(*flinkv1beta1.FlinkSessionJob) bool) func() bool {
			return func() bool {
				got, err := w.GetSessionJob("etl")
				return err == nil && cond(got)
			}
		}
		running := sessionJobIs(func(j *flinkv1beta1.FlinkSessionJob) bool {
			return j.Status.JobStatus.State == flinkv1beta1.JobStatusRunning && j.Status.ObservedGeneration == j.Generation &&
				j.Status.ReconciliationStatus.State == flinkv1beta1.ReconciliationDeployed
		})
		if err := c.StepUntil(w.Now().Add(3*time.Minute), running); err != nil || !running() {
			t.Fatalf("not running: %v\n%s", err, w.Trace)
		}
		if err := c.StepUntil(w.Now().Add(time.Minute), nil); err != nil { // checkpoints every 10 s
			t.Fatal(err)
		}
		p2 := int32(2)
		j.Spec.Job.Parallelism = &p2
		if err := w.ApplySessionJob(j); err != nil {
			t.Fatal(err)
		}
		upgrading := sessionJobIs(func(j *flinkv1beta1.FlinkSessionJob) bool {
			return j.Status.ReconciliationStatus.State == flinkv1beta1.ReconciliationUpgrading
		})
		if err := c.StepUntil(w.Now().Add(time.Minute), upgrading); err != nil || !upgrading() {
			t.Fatalf("no upgrade: %v\n%s", err, w.Trace)
		}
		if tamper {
			recordRestoreNothing(t, w, "etl")
		}
		err := c.StepUntil(w.Now().Add(3*time.Minute), running)
		t.Logf("tamper=%v: %v", tamper, err)
		if fired := err != nil && strings.Contains(err.Error(), "(S2)"); fired != tamper {
			t.Errorf("tamper=%v: %v\n%s", tamper, err, w.Trace)
		}
	}
}

// sessionWithJob applies cluster as the session cluster "session", which c watches, and the
// session job "etl" on it (parallelism 1, a jar fetched over HTTPS, upgrade mode mode), and
// returns the session job as applied.
func sessionWithJob(t *testing.T, w *World, c *Checker, cluster *flinkv1beta1.FlinkDeployment, mode flinkv1beta1.UpgradeMode) *flinkv1beta1.FlinkSessionJob {
	t.Helper()
	c.WatchSessionCluster("session")
	cluster.Name = "session"
	if err := w.Apply(cluster); err != nil {
		t.Fatal(err)
	}
	j := fixtures.SessionJob("", "etl", "session")
	j.Spec.Job.JarURI, j.Spec.Job.UpgradeMode = "https://repo.example.com/jobs/etl.jar", mode
	if err := w.ApplySessionJob(j); err != nil {
		t.Fatal(err)
	}
	return j
}

// recordRestoreNothing rewrites the session job's record of the upgrade under way to restore
// nothing, as a broken operator would write it.
func recordRestoreNothing(t *testing.T, w *World, name string) {
	t.Helper()
	cur, err := w.GetSessionJob(name)
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(cur.Status.ReconciliationStatus.LastReconciledSpec), &rec); err != nil {
		t.Fatal(err)
	}
	meta, _ := rec["resource_metadata"].(map[string]any)
	if meta["restoreMode"] != "savepoint" {
		t.Fatalf("the upgrade is recorded as %v", meta)
	}
	meta["restoreMode"] = "none"
	raw, _ := json.Marshal(rec)
	cur.Status.ReconciliationStatus.LastReconciledSpec = string(raw)
	if err := w.Client.Status().Update(context.Background(), cur); err != nil {
		t.Fatal(err)
	}
}
