package observe

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
	"github.com/flinkop/flinkop/operator/flink"
)

// stalling answers the job list at once; every other call waits until its context ends, as a
// JobManager that accepts connections but no longer answers does.
type stalling struct{ calls int }

func (s *stalling) ListJobs(context.Context) ([]flink.JobOverview, error) {
	return []flink.JobOverview{{ID: "job-1", State: flink.JobRunning}}, nil
}

func (s *stalling) wait(ctx context.Context) error {
	s.calls++
	<-ctx.Done()
	return ctx.Err()
}

func (s *stalling) JobExceptions(ctx context.Context, _ string) (*flink.ExceptionHistory, error) {
	return nil, s.wait(ctx)
}

func (s *stalling) Checkpoints(ctx context.Context, _ string) (*flink.CheckpointingStatistics, error) {
	return nil, s.wait(ctx)
}

func (s *stalling) SavepointStatus(ctx context.Context, _, _ string) (*flink.SavepointResult, error) {
	return nil, s.wait(ctx)
}

func (s *stalling) CheckpointStatus(ctx context.Context, _, _ string) (*flink.CheckpointResult, error) {
	return nil, s.wait(ctx)
}

func (s *stalling) ResourceRequirements(ctx context.Context, _ string) (flink.ResourceRequirements, error) {
	return nil, s.wait(ctx)
}

func (s *stalling) DashboardConfig(ctx context.Context) (*flink.DashboardConfig, error) {
	return nil, s.wait(ctx)
}

// TestRESTBudgetBoundsOneObservation: the REST reads of one observation share one budget, so
// a JobManager that stalls after its first answer costs the budget once, not a timeout per
// call.
func TestRESTBudgetBoundsOneObservation(t *testing.T) {
	api := &stalling{}
	o := &Observer{RESTBudget: 50 * time.Millisecond, Flink: func(*flinkv1beta1.FlinkDeployment) FlinkAPI { return api }}
	d := &flinkv1beta1.FlinkDeployment{
		ObjectMeta: metav1.ObjectMeta{Name: "job", Namespace: "ns"},
		Spec:       flinkv1beta1.FlinkDeploymentSpec{Job: &flinkv1beta1.JobSpec{JarURI: "local:///job.jar"}},
	}
	d.Status.JobStatus = flinkv1beta1.JobStatus{JobID: "job-1", SavepointInfo: &flinkv1beta1.SavepointInfo{TriggerID: "t-1"}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // each call's own timeout
	defer cancel()
	var obs decide.Observation
	wall := clock.RealClock{} // the budget is wall-clock time
	start := wall.Now()
	o.observeFlink(ctx, d, &obs)
	took := wall.Since(start)
	if api.calls < 4 {
		t.Fatalf("%d stalled calls, want the reads after the job list (at least 4)", api.calls)
	}
	if took > 2*time.Second {
		t.Errorf("the observation took %s: the stalled calls did not share the %s budget", took, o.RESTBudget)
	}
	if !obs.RESTReachable || obs.Job == nil || obs.Job.ID != "job-1" {
		t.Errorf("the job list answered, so the JobManager is reachable and the job observed: %+v", obs)
	}
}

func (s *stalling) JobDetails(ctx context.Context, _ string) (*flink.JobDetails, error) {
	return nil, s.wait(ctx)
}

func (s *stalling) SubtaskMetrics(ctx context.Context, _, _ string, _, _ []string) ([]flink.AggregatedMetric, error) {
	return nil, s.wait(ctx)
}

func (s *stalling) JobMetrics(ctx context.Context, _ string, _ ...string) (map[string]string, error) {
	return nil, s.wait(ctx)
}
