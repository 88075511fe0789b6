package chaos

// JobManagerDeploymentLoss deletes the resource's JobManager Deployment, as a stray
// `kubectl delete deployment` would: its pods die with it, HA metadata stays.
type JobManagerDeploymentLoss struct{}

// Name implements Fault.
func (JobManagerDeploymentLoss) Name() string { return "jm-deployment-deleted" }

// Apply implements Fault.
func (JobManagerDeploymentLoss) Apply(t Target, r string) error {
	return t.DeleteJobManagerDeployment(r)
}

// Effects says that the JobManager restarts and the job recovers from HA.
func (JobManagerDeploymentLoss) Effects() Effect { return RestartsJobManager }
