package controller_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/autoscaler"
)

// An autoscaled job (last-state, with HA) on fakeflink's workload model: its input rises past
// what one source subtask processes, and the autoscaler scales the source up in place (one job
// run, no redeploy); a JobManager failover does not undo it; the source scales down when the
// input drops back.
func TestAutoscalerScalesTheJobInPlace(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	one := int32(1)
	e.createRunning(deployment("as", flinkv1beta1.UpgradeModeLastState, conf(
		"jobmanager.scheduler", "adaptive",
		"fakeflink.workload.input", "steps:0s=500,15min=2500,50min=400",
		"fakeflink.workload.capacities", "1000,4000", "fakeflink.workload.restart-time", "5s",
		"job.autoscaler.enabled", "true", "job.autoscaler.metrics.window", "3m",
		"job.autoscaler.stabilization.interval", "1m", "job.autoscaler.scale-down.interval", "0",
		"job.autoscaler.catch-up.duration", "5m", "job.autoscaler.restart.time", "1m",
	), func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.Parallelism = &one }))

	source := func() int { return e.cluster("as").Jobs()[0].Vertices()[0].Parallelism }
	e.advance("as", 14*time.Minute)
	if p := source(); p != 1 {
		t.Fatalf("source parallelism %d at 500 records/s of 1,000, want 1", p)
	}
	e.advance("as", 20*time.Minute)
	if p := source(); p < 4 {
		t.Fatalf("source parallelism %d at 2,500 records/s, want at least 4\nevents:\n%s", p, strings.Join(e.events, "\n"))
	}
	if !e.hasEvent("ScalingReport") || !e.hasEvent("Scaling in place") {
		t.Errorf("no ScalingReport and in-place Scaling events: %v", e.events)
	}
	if n := len(e.cluster("as").Starts()); n != 1 {
		t.Errorf("%d job starts: an autoscaled rescale on the adaptive scheduler must not redeploy", n)
	}
	// A JobManager failover brings the job back with its rendered configuration (one source
	// subtask); the operator rescales it to the autoscaler's parallelism again.
	up := source()
	e.sim.Do(ns, "as", func(c *fakeflink.Cluster) {
		c.CrashJobManager()
		if err := c.StartJobManager(); err != nil {
			t.Fatal(err)
		}
	})
	e.advance("as", time.Minute)
	if p := source(); p != up {
		t.Errorf("source parallelism %d after a JobManager failover, want the autoscaler's %d again", p, up)
	}
	var cm corev1.ConfigMap
	if err := e.client.Get(e.ctx, client.ObjectKey{Namespace: ns, Name: act.AutoscalerConfigMapName("as")}, &cm); err != nil {
		t.Fatal(err)
	}
	if cm.Labels[act.LabelComponent] != act.ComponentAutoscaler || cm.Data[autoscaler.KeyParallelismOverrides] == "" {
		t.Errorf("state ConfigMap labels %v, overrides %q", cm.Labels, cm.Data[autoscaler.KeyParallelismOverrides])
	}
	e.advance("as", 40*time.Minute)
	if p := source(); p > 2 {
		t.Errorf("source parallelism %d at 400 records/s, want it scaled back down\n%s", p, strings.Join(e.events, "\n"))
	}
	if d := e.get("as"); d.Status.JobStatus.State != flinkv1beta1.JobStatusRunning || flinkv1beta1.ErrorMessage(d.Status.Error) != "" {
		t.Errorf("job %s, error %q", d.Status.JobStatus.State, flinkv1beta1.ErrorMessage(d.Status.Error))
	}
}
