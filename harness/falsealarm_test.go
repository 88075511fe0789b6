package harness

import (
	"strings"
	"testing"
	"time"

	"github.com/flinkop/flinkop/fakeflink"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// claim makes the resource's reconcile say message under reason, as a broken operator would,
// and returns the checker's violations after it.
func claim(w *World, c *Checker, key, name string, obj any, reason, message string) []string {
	w.beginAlarms(key)
	switch o := obj.(type) {
	case *flinkv1beta1.FlinkDeployment:
		w.events.Event(o, "Warning", reason, message)
	case *flinkv1beta1.FlinkSessionJob:
		w.events.Event(o, "Warning", reason, message)
	}
	w.endAlarms()
	return c.Check(name)
}

// TestStatedReasonsMatchFakeflink: on a session cluster whose REST API answers 503 and then
// not at all for minutes, the operator never says a running session job is missing; an
// operator that took the outage for Flink's 404 ("job … is not on session cluster") is
// caught, and so is one that says a running job failed (RestartFailedJob).
func TestStatedReasonsMatchFakeflink(t *testing.T) {
	w, c := checkedWorld(t, 9)
	cluster := &flinkv1beta1.FlinkDeployment{Spec: flinkv1beta1.FlinkDeploymentSpec{Image: "flink:1.20", FlinkVersion: "v1_20"}}
	sessionWithJob(t, w, c, cluster, flinkv1beta1.UpgradeModeStateless)
	running := func() bool {
		got, err := w.GetSessionJob("etl")
		return err == nil && got.Status.JobStatus.State == flinkv1beta1.JobStatusRunning
	}
	if err := c.StepUntil(w.Now().Add(5*time.Minute), running); err != nil || !running() {
		t.Fatalf("the session job does not run: %v\n%s", err, w.Trace)
	}
	for _, f := range []fakeflink.RESTFault{fakeflink.RESTUnavailable, fakeflink.RESTTimeout} {
		until := w.Now().Add(3 * time.Minute)
		w.Sim.Do(w.Namespace, "session", func(cl *fakeflink.Cluster) { cl.SetRESTFault(f, until) })
		if err := c.StepUntil(until.Add(time.Minute), nil); err != nil {
			t.Fatalf("REST fault %d: %v\n%s", f, err, w.Trace)
		}
	}
	unreachable := 0
	for _, e := range w.Events() {
		switch e.Reason {
		case "JobMissing":
			t.Errorf("the operator said %q during a REST outage", e.Message)
		case "JobManagerUnreachable":
			unreachable++
		}
	}
	if unreachable != 2 {
		t.Errorf("%d JobManagerUnreachable Events, want one for each outage", unreachable)
	}

	sj, _ := w.GetSessionJob("etl")
	id := sj.Status.JobStatus.JobID
	v := claim(w, c, SessionJobKey("etl"), "session", sj, "JobMissing", "job "+id+" is not on session cluster session; it is submitted again")
	if !strings.Contains(strings.Join(v, "\n"), "JobMissing") || !strings.Contains(strings.Join(v, "\n"), "invariant 7") {
		t.Errorf("a false JobMissing passed: %v", v)
	}
	d, _ := w.Get("session")
	v = claim(w, c, "session", "session", d, "RestartFailedJob", "Job "+id+" failed; restarting it with upgrade mode stateless")
	if !strings.Contains(strings.Join(v, "\n"), "RestartFailedJob") {
		t.Errorf("a false RestartFailedJob passed: %v", v)
	}
	v = claim(w, c, "session", "session", d, "JobFailed", "java.lang.RuntimeException: boom")
	if !strings.Contains(strings.Join(v, "\n"), "no job of its cluster is FAILED") {
		t.Errorf("a false JobFailed passed: %v", v)
	}
	v = claim(w, c, "session", "session", d, "RestartUnhealthyJob", "Job "+id+" is unhealthy (3 restarts within 2m0s); restarting it with upgrade mode stateless")
	if !strings.Contains(strings.Join(v, "\n"), "failed 0 times within 2m0s") {
		t.Errorf("a false count of restarts passed: %v", v)
	}
}

// TestUnhealthyCheckpointClaim: "no checkpoint completed within W" is held to fakeflink's
// newest checkpoint of the job: false when one completed within W, true otherwise.
func TestUnhealthyCheckpointClaim(t *testing.T) {
	w, c, d := runningSavepointJob(t, 3)
	if err := c.StepUntil(w.Now().Add(2*time.Minute), nil, d.Name); err != nil {
		t.Fatal(err)
	}
	d, _ = w.Get(d.Name)
	id := d.Status.JobStatus.JobID
	msg := func(window string) string {
		return "Job " + id + " is unhealthy (no checkpoint completed within " + window + "); restarting it with upgrade mode savepoint"
	}
	if v := claim(w, c, d.Name, d.Name, d, "RestartUnhealthyJob", msg("1m0s")); !strings.Contains(strings.Join(v, "\n"), "completed a checkpoint") {
		t.Errorf("a false claim of no checkpoint passed: %v", v)
	}
	// Checkpoints fail from now on: a minute later, none completed within 30 s is true.
	w.Cluster(d.Name, func(cl *fakeflink.Cluster) { cl.FailCheckpoints(true) })
	if err := w.RunFor(time.Minute); err != nil {
		t.Fatal(err)
	}
	before := len(w.FalseAlarms())
	claim(w, c, d.Name, d.Name, d, "RestartUnhealthyJob", msg("30s"))
	if after := w.FalseAlarms(); len(after) != before {
		t.Errorf("a true claim of no checkpoint was flagged: %v", after[before:])
	}
}
