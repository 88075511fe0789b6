package decide

import (
	"fmt"
	"strconv"
	"time"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
)

// shutdownEndedJobManager deletes the JobManager (and TaskManagers) of an application whose
// job ended for good (FINISHED, FAILED, CANCELED) once kubernetes.operator.jm-deployment.shutdown-ttl
// has passed since the job's last status change (status.jobStatus.updateTime), as Apache's
// operator does: the pods stop holding resources, HA metadata is kept, and the deployment
// shows its JobManager MISSING (recoverJobManager leaves an ended job's alone). The job's
// result stays in status; a spec change deploys again, restoring the ended job's newest
// snapshot, which is read and recorded as status.jobStatus.upgradeSavepointPath first (as
// Apache's observer records a terminal job's checkpoint there): once the JobManager is gone,
// nobody can tell it, and an older path left there would be restored instead. So it waits
// for the REST API to answer about the job. A failed job that
// kubernetes.operator.job.restart.failed restarts never gets here.
func (s *step) shutdownEndedJobManager() bool {
	o := s.in.Observed
	rs := s.st.ReconciliationStatus.State
	js := s.st.JobStatus
	if s.d.Spec.Job == nil || o.JobManager == nil || js.State == "" || !jobState(js.State).globallyTerminal() ||
		(rs != flinkv1beta1.ReconciliationDeployed && rs != flinkv1beta1.ReconciliationRolledBack) {
		return false
	}
	ms, err := strconv.ParseInt(js.UpdateTime, 10, 64)
	if err != nil {
		return false // no time to count from: kept, as Apache cannot count either
	}
	ttl := s.in.Options.JMShutdownTTL
	if !s.in.Now.After(time.UnixMilli(ms).Add(ttl)) || !o.RESTReachable || o.Job == nil || o.Job.ID != js.JobID {
		return false
	}
	s.st.JobStatus.UpgradeSavepointPath = ""
	if snap := NewestSnapshot(o.Job, &s.st.JobStatus); snap != nil {
		s.st.JobStatus.UpgradeSavepointPath = snap.Path
	}
	s.act(Action{Kind: ActDeleteCluster})
	s.event(Normal, "Cleanup", fmt.Sprintf("Job %s is %s since %s, longer than %s (%s): deleting its JobManager Deployment, keeping HA metadata",
		js.JobID, js.State, time.UnixMilli(ms).UTC().Format(time.RFC3339), ttl, config.KeyJMShutdownTTL))
	s.requeue(s.in.Options.ProgressCheckInterval)
	return true
}
