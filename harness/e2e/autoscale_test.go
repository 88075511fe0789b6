//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestAutoscalerScalesUpAndDown runs an autoscaled job of fakeflink's workload model on real
// pods: its input rises past what one source subtask processes, the operator scales the source
// up in place (the same job, more TaskManager pods, restored from its latest checkpoint), and
// back down when the input drops, with no state lost.
func TestAutoscalerScalesUpAndDown(t *testing.T) {
	d := newDeployment(t, "e2e-autoscale", flinkv1beta1.UpgradeModeSavepoint, func(d *flinkv1beta1.FlinkDeployment) {
		d.Spec.Job.Parallelism = ptr(int32(1))
		for k, v := range map[string]string{
			"jobmanager.scheduler":                  "adaptive",
			"fakeflink.workload.input":              "steps:0s=300,40s=2500,3min=200",
			"fakeflink.workload.capacities":         "1000,4000",
			"fakeflink.workload.restart-time":       "2s",
			"job.autoscaler.enabled":                "true",
			"job.autoscaler.metrics.window":         "20s",
			"job.autoscaler.stabilization.interval": "10s",
			"job.autoscaler.scale-down.interval":    "0",
			"job.autoscaler.catch-up.duration":      "1m",
			"job.autoscaler.restart.time":           "10s",
			"job.autoscaler.vertex.max-parallelism": "4",
		} {
			d.Spec.FlinkConfiguration.Set(k, v)
		}
	})
	d = running(t, d, startTimeout)
	jobID := d.Status.JobStatus.JobID
	before := fakeJob(t, d.Name, jobID)

	up := waitSource(t, d.Name, jobID, "scaled up", 4*time.Minute, func(p int) bool { return p >= 3 })
	after := fakeJob(t, d.Name, jobID)
	if r := after.Restored; r == nil || r.Kind != fakeflink.KindCheckpoint || after.Offset < before.Offset {
		t.Errorf("after the rescale to %d the job is at offset %d (was %d), restored %+v: want its latest checkpoint", up, after.Offset, before.Offset, r)
	}
	waitSource(t, d.Name, jobID, "scaled back down", 5*time.Minute, func(p int) bool { return p == 1 })
	if now := fakeJob(t, d.Name, jobID); now.Offset < after.Offset || now.ID != jobID {
		t.Errorf("job %s at offset %d after scaling down, was %s at %d", now.ID, now.Offset, jobID, after.Offset)
	}
	var events corev1.EventList
	if err := env.client.List(context.Background(), &events, client.InNamespace(jobNS)); err != nil {
		t.Fatal(err)
	}
	reports := 0
	for _, e := range events.Items {
		if e.InvolvedObject.Name == d.Name && e.Reason == "ScalingReport" {
			reports++
		}
	}
	if reports < 2 {
		t.Errorf("%d ScalingReport Events, want one for each way", reports)
	}
	var cm corev1.ConfigMap
	if err := env.client.Get(context.Background(), client.ObjectKey{Namespace: jobNS, Name: act.AutoscalerConfigMapName(d.Name)}, &cm); err != nil {
		t.Errorf("the autoscaler's state: %v", err)
	}
}

// waitSource waits until the parallelism of the job's source (its first vertex, as the
// JobManager reports it) satisfies cond, and returns it.
func waitSource(t *testing.T, name, jobID, what string, timeout time.Duration, cond func(int) bool) int {
	t.Helper()
	start := time.Now()
	last, lastErr := 0, error(nil)
	for time.Since(start) < timeout {
		p, err := sourceParallelism(name, jobID)
		if err == nil && cond(p) {
			step("%s: source %s to %d after %s", name, what, p, time.Since(start).Round(time.Second))
			return p
		}
		last, lastErr = p, err
		time.Sleep(poll)
	}
	t.Fatalf("%s: source not %s within %s (parallelism %d, %v)", name, what, timeout, last, lastErr)
	return 0
}

func sourceParallelism(name, jobID string) (int, error) {
	raw, err := env.clientset.CoreV1().Services(jobNS).
		ProxyGet("http", act.RESTServiceName(name), "rest", "/jobs/"+jobID, nil).DoRaw(context.Background())
	if err != nil {
		return 0, fmt.Errorf("GET /jobs/%s: %w", jobID, err)
	}
	var details struct {
		Vertices []struct {
			Name        string `json:"name"`
			Parallelism int    `json:"parallelism"`
		} `json:"vertices"`
	}
	if err := json.Unmarshal(raw, &details); err != nil || len(details.Vertices) == 0 || !strings.HasPrefix(details.Vertices[0].Name, "Source") {
		return 0, fmt.Errorf("decode %s: %v", raw, err)
	}
	return details.Vertices[0].Parallelism, nil
}
