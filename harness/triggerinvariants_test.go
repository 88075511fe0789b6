package harness

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// nonceSavepointTaken applies a savepoint nonce to a running savepoint job and steps until its
// savepoint is recorded; it returns the world and checker.
func nonceSavepointTaken(t *testing.T) (*World, *Checker) {
	t.Helper()
	w, c, d := runningSavepointJob(t, 3)
	n := int64(1)
	d.Spec.Job.SavepointTriggerNonce = &n
	if err := w.Apply(d); err != nil {
		t.Fatal(err)
	}
	if v := stepUntil(t, w, c, "savepoint taken", func(d *flinkv1beta1.FlinkDeployment) bool {
		sp := d.Status.JobStatus.SavepointInfo
		return sp != nil && sp.LastSavepoint != nil && sp.TriggerID == ""
	}); len(v) > 0 {
		t.Fatalf("violations on a nonce savepoint: %v", v)
	}
	return w, c
}

// TestOneSavepointPerNonce: a nonce takes one savepoint, and the world stays quiet for the 10
// minutes after it (Flink forgets the operation after 5); an operator that loses the nonce
// from its record of the deployed spec (the status is tampered with, as a bug would write it)
// asks again once Flink forgot the trigger, the job takes a second savepoint, and N5 fires.
func TestOneSavepointPerNonce(t *testing.T) {
	for _, tamper := range []bool{false, true} {
		w, c := nonceSavepointTaken(t)
		if err := c.StepUntil(w.Now().Add(6*time.Minute), nil, "job"); err != nil {
			t.Fatalf("tamper=%v: %v", tamper, err)
		}
		if tamper {
			cur, _ := w.Get("job")
			var last map[string]any
			if err := json.Unmarshal([]byte(cur.Status.ReconciliationStatus.LastReconciledSpec), &last); err != nil {
				t.Fatal(err)
			}
			spec, _ := last["spec"].(map[string]any)
			job, _ := spec["job"].(map[string]any)
			if job["savepointTriggerNonce"] == nil {
				t.Fatalf("no nonce in the record: %s", cur.Status.ReconciliationStatus.LastReconciledSpec)
			}
			delete(job, "savepointTriggerNonce")
			raw, _ := json.Marshal(last)
			cur.Status.ReconciliationStatus.LastReconciledSpec = string(raw)
			if err := w.Client.Status().Update(context.Background(), cur); err != nil {
				t.Fatal(err)
			}
		}
		err := c.StepUntil(w.Now().Add(4*time.Minute), nil, "job")
		if fired := err != nil && strings.Contains(err.Error(), "N5: "); fired != tamper {
			t.Errorf("tamper=%v: %v", tamper, err)
		}
	}
}

// TestOneSavepointInFlight: while the nonce's savepoint hangs in Flink, an upgrade (a new
// parallelism, savepoint mode) waits for it, also when the operator lost the trigger from its
// status (cleared, as a lost status write leaves it): it sees the savepoint in Flink's
// checkpoint history. A second savepoint asked of the job anyway (as an operator that does not
// look would) makes N6 fire.
func TestOneSavepointInFlight(t *testing.T) {
	for _, tc := range []struct {
		name          string
		lost, trigger bool
	}{{"upgrade waits", false, false}, {"trigger lost from status", true, false}, {"a second trigger", false, true}} {
		w, c, d := runningSavepointJob(t, 5)
		w.Sim.Do(w.Namespace, "job", func(cl *fakeflink.Cluster) { cl.HangSavepoints(true) })
		n := int64(1)
		d.Spec.Job.SavepointTriggerNonce = &n
		if err := w.Apply(d); err != nil {
			t.Fatal(err)
		}
		stepUntil(t, w, c, "savepoint triggered", func(d *flinkv1beta1.FlinkDeployment) bool {
			sp := d.Status.JobStatus.SavepointInfo
			return sp != nil && sp.TriggerID != ""
		})
		cur, _ := w.Get("job")
		if tc.lost {
			cur.Status.JobStatus.SavepointInfo.TriggerID = ""
			if err := w.Client.Status().Update(context.Background(), cur); err != nil {
				t.Fatal(err)
			}
		}
		if tc.trigger {
			w.Sim.Do(w.Namespace, "job", func(cl *fakeflink.Cluster) {
				if _, err := cl.TriggerSavepoint(cur.Status.JobStatus.JobID, fakeflink.SavepointRequest{}); err != nil {
					t.Fatal(err)
				}
			})
		}
		p := int32(3)
		d.Spec.Job.Parallelism = &p
		if err := w.Apply(d); err != nil {
			t.Fatal(err)
		}
		err := c.StepUntil(w.Now().Add(3*time.Minute), nil, "job")
		if fired := err != nil && strings.Contains(err.Error(), "N6: "); fired != tc.trigger {
			t.Errorf("%s: %v", tc.name, err)
		}
		if got, _ := w.Get("job"); !tc.trigger && got.Status.ReconciliationStatus.State != flinkv1beta1.ReconciliationUpgrading {
			t.Errorf("%s: reconciliation %s, want the upgrade waiting", tc.name, got.Status.ReconciliationStatus.State)
		}
	}
}

// TestOneSavepointPerNonceOfSessionJobs: a session job whose nonce changed once takes one
// savepoint and stays within N5 for minutes; a second savepoint of its job that no nonce asked
// for (as an operator that triggers twice would take) makes N5 fire for the session job.
func TestOneSavepointPerNonceOfSessionJobs(t *testing.T) {
	for _, extra := range []bool{false, true} {
		w, c := checkedWorld(t, 11)
		cluster := &flinkv1beta1.FlinkDeployment{Spec: fixtures.StatefulDeployment("", "", flinkv1beta1.UpgradeModeSavepoint).Spec}
		cluster.Spec.Job = nil
		j := sessionWithJob(t, w, c, cluster, flinkv1beta1.UpgradeModeSavepoint)
		running := func() bool {
			got, err := w.GetSessionJob("etl")
			return err == nil && got.Status.JobStatus.State == flinkv1beta1.JobStatusRunning
		}
		if err := c.StepUntil(w.Now().Add(5*time.Minute), running); err != nil || !running() {
			t.Fatalf("the session job does not run: %v\n%s", err, w.Trace)
		}
		n := int64(1)
		j.Spec.Job.SavepointTriggerNonce = &n
		if err := w.ApplySessionJob(j); err != nil {
			t.Fatal(err)
		}
		if err := c.StepUntil(w.Now().Add(2*time.Minute), nil); err != nil {
			t.Fatalf("extra=%v: the nonce's savepoint: %v", extra, err)
		}
		if extra {
			got, _ := w.GetSessionJob("etl")
			w.Sim.Do(w.Namespace, "session", func(cl *fakeflink.Cluster) {
				if _, err := cl.TriggerSavepoint(got.Status.JobStatus.JobID, fakeflink.SavepointRequest{}); err != nil {
					t.Fatal(err)
				}
			})
		}
		err := c.StepUntil(w.Now().Add(3*time.Minute), nil)
		if fired := err != nil && strings.Contains(err.Error(), "N5: the jobs of session job etl"); fired != extra {
			t.Errorf("extra=%v: %v\n%s", extra, err, w.Trace)
		}
	}
}
