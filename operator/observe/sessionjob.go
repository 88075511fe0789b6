package observe

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/flink"
	"github.com/flinkop/flinkop/operator/sessionjob"
)

// SessionFlinkAPI is what observing a session job needs from its session cluster's REST API.
type SessionFlinkAPI interface {
	FlinkAPI
	ListJars(ctx context.Context) ([]flink.Jar, error)
}

// SessionJobObserver builds the Observations of FlinkSessionJobs. It only reads.
type SessionJobObserver struct {
	// Client reads Kubernetes objects (the manager's cache).
	Client client.Reader
	// Flink returns the REST client of a session cluster's JobManager.
	Flink func(cluster *flinkv1beta1.FlinkDeployment) SessionFlinkAPI
	// RESTBudget bounds all REST reads of one observation together (see Observer).
	RESTBudget time.Duration
	// Snapshots lists the FlinkStateSnapshots of a job (see Observer).
	Snapshots act.SnapshotLister
	// Reader reads past the cache (nil: never): a snapshot about to become the job's last
	// savepoint is read there first (see Observer.Reader).
	Reader client.Reader
	// Defaults are given to the session cluster read (see FlinkDefaults).
	Defaults flinkv1beta1.FlinkDefaults
}

// Observe reads the session cluster of j, and the job and jars j has on it. It also returns
// the session FlinkDeployment (nil when missing). Kubernetes read errors are returned; Flink
// REST errors are part of the observation.
func (o *SessionJobObserver) Observe(ctx context.Context, j *flinkv1beta1.FlinkSessionJob) (sessionjob.Observation, *flinkv1beta1.FlinkDeployment, error) {
	var obs sessionjob.Observation
	if j.Spec.DeploymentName == "" {
		obs.Cluster = sessionjob.ClusterMissing
		return obs, nil, nil
	}
	var d flinkv1beta1.FlinkDeployment
	if err := o.Client.Get(ctx, client.ObjectKey{Namespace: j.Namespace, Name: j.Spec.DeploymentName}, &d); err != nil {
		if apierrors.IsNotFound(err) {
			obs.Cluster = sessionjob.ClusterMissing
			return obs, nil, nil
		}
		return obs, nil, fmt.Errorf("get session cluster %s: %w", j.Spec.DeploymentName, err)
	}
	o.Defaults.Apply(&d)
	obs.ClusterDeleting = d.DeletionTimestamp != nil
	obs.FlinkVersion = d.Spec.FlinkVersion
	st := d.Status
	switch {
	case d.Spec.Job != nil:
		obs.Cluster = sessionjob.ClusterNotSession
		return obs, &d, nil
	case st.JobManagerDeploymentStatus != flinkv1beta1.JobManagerReady:
		obs.Cluster = sessionjob.ClusterNotReady
		obs.ClusterMessage = fmt.Sprintf("its JobManager is %s (lifecycle state %s)", orUnknown(string(st.JobManagerDeploymentStatus)), orUnknown(string(st.LifecycleState)))
		return obs, &d, nil
	case st.ReconciliationStatus.State == flinkv1beta1.ReconciliationUpgrading:
		obs.Cluster = sessionjob.ClusterNotReady
		obs.ClusterMessage = "it is being upgraded"
		return obs, &d, nil
	}
	obs.Cluster = sessionjob.ClusterReady
	if steady(j.DeletionTimestamp, &j.Status.ReconciliationStatus, &j.Status.JobStatus) {
		var err error
		if obs.TakenSavepoint, err = takenSavepoint(ctx, o.Snapshots, o.Client, o.Reader, j, flinkv1beta1.JobKindSessionJob, &j.Status.JobStatus); err != nil {
			return obs, &d, err
		}
	}
	o.observeFlink(ctx, j, &d, &obs)
	return obs, &d, nil
}

func (o *SessionJobObserver) observeFlink(ctx context.Context, j *flinkv1beta1.FlinkSessionJob, d *flinkv1beta1.FlinkDeployment, obs *sessionjob.Observation) {
	ctx, cancel := withBudget(ctx, o.RESTBudget)
	defer cancel()
	api := o.Flink(d)
	defer func() { obs.RESTDeferred = budgetRefused(api) }()
	jobs, err := api.ListJobs(ctx)
	if err != nil {
		obs.RESTError = err.Error()
		return
	}
	jars, err := api.ListJars(ctx)
	if err != nil {
		obs.RESTError = err.Error()
		return
	}
	obs.RESTReachable = true
	prefix := sessionjob.JarPrefix(string(j.UID))
	for _, jar := range jars {
		if strings.HasPrefix(jar.Name, prefix) {
			obs.Jars = append(obs.Jars, sessionjob.Jar{ID: jar.ID, Name: jar.Name})
		}
	}
	id := j.Status.JobStatus.JobID
	for i := range jobs {
		if id != "" && jobs[i].ID == id {
			obs.Job, obs.Savepoint, obs.Checkpoint = observeJob(ctx, api, &jobs[i], &j.Status.JobStatus, false)
			return
		}
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
