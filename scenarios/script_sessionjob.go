package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// BaseSessionJob is a session job of an http jar in savepoint mode, parallelism 1.
func BaseSessionJob(deployment string) flinkv1beta1.FlinkSessionJobSpec {
	p := int32(1)
	return flinkv1beta1.FlinkSessionJobSpec{
		DeploymentName: deployment,
		Job: &flinkv1beta1.JobSpec{
			JarURI: "https://repo.example.com/jobs/etl.jar", Parallelism: &p, UpgradeMode: flinkv1beta1.UpgradeModeSavepoint,
		},
	}
}

// applySessionJob creates or changes a FlinkSessionJob (the sessionjob directive).
func (s *Script) applySessionJob(name string, a args) error {
	spec, ok := s.jobs[name]
	if !ok {
		base := BaseSessionJob(a.str("deployment", resource))
		spec = &base
		s.jobs[name] = spec
		if !slices.Contains(s.jobNames, name) {
			s.jobNames = append(s.jobNames, name)
		}
	}
	a.take("deployment")
	if v, ok := a.take("mode"); ok {
		if err := oneOf("mode", v, upgradeModes...); err != nil {
			return err
		}
		spec.Job.UpgradeMode = flinkv1beta1.UpgradeMode(v)
	}
	if v, ok := a.take("state"); ok {
		if err := oneOf("state", v, string(flinkv1beta1.JobStateRunning), string(flinkv1beta1.JobStateSuspended)); err != nil {
			return err
		}
		spec.Job.State = flinkv1beta1.JobState(v)
	}
	for key, set := range map[string]func(int64){
		"parallelism":     func(n int64) { p := int32(n); spec.Job.Parallelism = &p },
		"savepoint-nonce": func(n int64) { spec.Job.SavepointTriggerNonce = &n },
		"restart-nonce":   func(n int64) { spec.RestartNonce = &n },
	} {
		if v, ok := a.take(key); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
			set(n)
		}
	}
	for _, kv := range a.takeAll("conf") {
		if spec.FlinkConfiguration == nil {
			spec.FlinkConfiguration = flinkv1beta1.NewFlinkConfiguration(nil)
		}
		k, v, _ := strings.Cut(kv, "=")
		spec.FlinkConfiguration.Set(k, v)
	}
	j := &flinkv1beta1.FlinkSessionJob{Spec: *spec.DeepCopy()}
	j.Name = name
	return s.w.ApplySessionJob(j)
}

func (s *Script) deleteSessionJob(name string) error {
	delete(s.jobs, name)
	return s.w.DeleteSessionJob(name)
}

// reachedJob reports whether a session job reached a run directive's until= state.
func (s *Script) reachedJob(name, until string) bool {
	j, err := s.w.GetSessionJob(name)
	switch until {
	case "deleted":
		return apierrors.IsNotFound(err)
	case "refused":
		return err == nil && j.Status.Error != ""
	case "suspended":
		return err == nil && j.Status.LifecycleState == flinkv1beta1.LifecycleSuspended
	}
	if _, applied := s.jobs[name]; !applied {
		return apierrors.IsNotFound(err) // deleted: stable once gone
	}
	return err == nil && j.Status.Error == "" && j.Status.LifecycleState == flinkv1beta1.LifecycleStable &&
		j.Status.ObservedGeneration == j.Generation && j.Status.JobStatus.State == flinkv1beta1.JobStatusRunning
}

// sessionJobStatus renders a session job's status.
func (s *Script) sessionJobStatus(name string) string {
	j, err := s.w.GetSessionJob(name)
	if err != nil {
		return fmt.Sprintf("%s: %v\n", name, err)
	}
	st := j.Status
	out := fmt.Sprintf("lifecycle=%s job=%s reconciliation=%s generation=%d observed=%d\n",
		st.LifecycleState, st.JobStatus.State, st.ReconciliationStatus.State, j.Generation, st.ObservedGeneration)
	if p := st.JobStatus.UpgradeSavepointPath; p != "" {
		out += "restore path: " + p + "\n"
	}
	if st.Error != "" {
		out += "error: " + flinkv1beta1.ErrorMessage(st.Error) + "\n"
	}
	return out
}
