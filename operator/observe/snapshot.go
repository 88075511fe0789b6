package observe

import (
	"cmp"
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/flink"
	"github.com/flinkop/flinkop/operator/snapshot"
)

// SnapshotFlinkAPI is what observing a snapshot needs of its job's JobManager.
type SnapshotFlinkAPI interface {
	OperationAPI
	Checkpoints(ctx context.Context, jobID string) (*flink.CheckpointingStatistics, error)
	CheckpointDetails(ctx context.Context, jobID string, checkpointID int64) (*flink.CheckpointStats, error)
}

// SnapshotObserver builds the Observations of FlinkStateSnapshots. It only reads.
type SnapshotObserver struct {
	// Client reads Kubernetes objects (the manager's cache).
	Client client.Reader
	// Flink returns the REST client of a cluster's JobManager.
	Flink func(cluster *flinkv1beta1.FlinkDeployment) SnapshotFlinkAPI
	// RESTBudget bounds all REST reads of one observation together (see Observer).
	RESTBudget time.Duration
	// Defaults are given to every FlinkDeployment read (see FlinkDefaults).
	Defaults flinkv1beta1.FlinkDefaults
	// Restorers lists the jobs of every namespace that may restore from a savepoint
	// (act.RestoreLister; Indexed when Client is a manager's cache with act.IndexRestorePath).
	Restorers act.RestoreLister
}

// Observe reads the resource s references (in s's namespace) and, while s is in progress,
// what its JobManager says of the operation; while its savepoint's disposal is pending,
// whether a job of any namespace would restore from it. It also returns the cluster whose
// JobManager serves the job (nil when there is none). Kubernetes read errors are returned;
// Flink REST errors leave the operation unknown.
func (o *SnapshotObserver) Observe(ctx context.Context, s *flinkv1beta1.FlinkStateSnapshot) (snapshot.Observation, *flinkv1beta1.FlinkDeployment, error) {
	var obs snapshot.Observation
	ref := s.Spec.JobReference
	if ref == nil || ref.Name == "" {
		return obs, nil, nil
	}
	cluster, js, conf, err := o.target(ctx, s.Namespace, ref)
	if err != nil || js == nil {
		return obs, nil, err
	}
	t := &obs.Target
	t.Found, t.JobID, t.JobState = true, js.JobID, string(js.State)
	if cluster != nil {
		t.FlinkVersion = cluster.Spec.FlinkVersion
		clusterConf, _ := cluster.Spec.Conf()
		t.SavepointDir, _ = flinkv1beta1.FirstSet(clusterConf, flinkv1beta1.ConfigSavepointsDirV2, flinkv1beta1.ConfigSavepointsDir)
	}
	if dir, ok := flinkv1beta1.FirstSet(conf, flinkv1beta1.ConfigSavepointsDirV2, flinkv1beta1.ConfigSavepointsDir); ok {
		t.SavepointDir = dir // a session job's own directory wins
	}
	if disposing(s) && t.JobState == string(flinkv1beta1.JobStatusRunning) { // else disposal waits anyway
		if obs.RestoredBy, err = o.restoredBy(ctx, s.Namespace, s.Status.Path); err != nil {
			return obs, cluster, err
		}
		if obs.RestoredBy == "" && cluster != nil && t.JobID != "" {
			obs.RestoredBy = o.newestOfItsJob(ctx, cluster, t.JobID, s)
		}
	}
	if cluster != nil && s.Status.State == flinkv1beta1.SnapshotInProgress && s.Status.TriggerID != "" && t.JobID != "" {
		o.observeOperation(ctx, s, cluster, t.JobID, &obs)
	}
	return obs, cluster, nil
}

// target reads the referenced resource: its cluster (the deployment itself, or a session
// job's session cluster; nil when missing), its job status (nil when the resource is
// missing) and its own configuration.
func (o *SnapshotObserver) target(ctx context.Context, ns string, ref *flinkv1beta1.JobReference) (*flinkv1beta1.FlinkDeployment, *flinkv1beta1.JobStatus, map[string]string, error) {
	switch ref.Kind {
	case flinkv1beta1.JobKindDeployment:
		d, err := o.deployment(ctx, ns, ref.Name)
		if err != nil || d == nil {
			return nil, nil, nil, err
		}
		if d.Spec.Job == nil {
			return d, &flinkv1beta1.JobStatus{}, nil, nil // a session cluster runs no job of its own
		}
		return d, &d.Status.JobStatus, nil, nil
	case flinkv1beta1.JobKindSessionJob:
		var j flinkv1beta1.FlinkSessionJob
		err := o.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: ref.Name}, &j)
		if apierrors.IsNotFound(err) {
			return nil, nil, nil, nil
		}
		if err != nil {
			return nil, nil, nil, fmt.Errorf("get FlinkSessionJob %s: %w", ref.Name, err)
		}
		d, err := o.deployment(ctx, ns, j.Spec.DeploymentName)
		if err != nil {
			return nil, nil, nil, err
		}
		conf, _ := j.Spec.FlinkConfiguration.Flatten()
		return d, &j.Status.JobStatus, conf, nil
	}
	return nil, nil, nil, nil
}

func (o *SnapshotObserver) deployment(ctx context.Context, ns, name string) (*flinkv1beta1.FlinkDeployment, error) {
	if name == "" {
		return nil, nil
	}
	var d flinkv1beta1.FlinkDeployment
	if err := o.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &d); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("get FlinkDeployment %s: %w", name, err)
	}
	o.Defaults.Apply(&d)
	return &d, nil
}

// disposing reports whether s is a deleted, completed savepoint to dispose of.
func disposing(s *flinkv1beta1.FlinkStateSnapshot) bool {
	sp := s.Spec.Savepoint
	return s.DeletionTimestamp != nil && s.Status.State == flinkv1beta1.SnapshotCompleted && s.Status.Path != "" &&
		sp != nil && sp.EffectiveDisposeOnDelete()
}

// newestOfItsJob names the snapshot's job when the savepoint is that job's newest savepoint
// and no checkpoint completed since: a last-state restore (HA recovery is judged against
// it) would take it. A JobManager that does not answer cannot tell, and keeps it too.
func (o *SnapshotObserver) newestOfItsJob(ctx context.Context, cluster *flinkv1beta1.FlinkDeployment, jobID string, s *flinkv1beta1.FlinkStateSnapshot) string {
	ctx, cancel := withBudget(ctx, o.RESTBudget)
	defer cancel()
	ref := s.Spec.JobReference
	st, err := o.Flink(cluster).Checkpoints(ctx, jobID)
	switch {
	case err != nil:
		return fmt.Sprintf("%s %s (its JobManager did not tell whether a checkpoint completed after it: %v)", ref.Kind, ref.Name, err)
	case st.Latest.Savepoint == nil || !samePath(st.Latest.Savepoint.ExternalPath, s.Status.Path):
		return ""
	case st.Latest.Completed != nil && st.Latest.Completed.ID > st.Latest.Savepoint.ID:
		return ""
	}
	return fmt.Sprintf("%s %s (its job's newest savepoint, with no checkpoint since)", ref.Kind, ref.Name)
}

// restoredBy names a FlinkDeployment or FlinkSessionJob of any namespace the operator
// watches that would restore from the savepoint at path, and why; "" when none would. A
// tenant's snapshot can name any path, so a job of another namespace keeps it too; that job
// is not named to the snapshot's namespace (ns). Of several, the one named is the same on
// every reconcile: ns's own first, FlinkDeployments first, then by namespace and name. It
// reads the cached objects without copying them (only while a completed savepoint's disposal
// is pending), through act.IndexRestorePath in the operator.
func (o *SnapshotObserver) restoredBy(ctx context.Context, ns, path string) (string, error) {
	ds, js, err := o.Restorers.List(ctx, o.Client, path)
	if err != nil {
		return "", err
	}
	var best restorer
	for i := range ds {
		d := &ds[i]
		best = best.or(restorer{
			kind: "FlinkDeployment", ns: d.Namespace, name: d.Name, own: d.Namespace == ns,
			why: restoresFrom(d.Spec.Job, &d.Status.JobStatus, d.Generation, d.Status.ObservedGeneration, path),
		})
	}
	for i := range js {
		j := &js[i]
		best = best.or(restorer{
			kind: "FlinkSessionJob", ns: j.Namespace, name: j.Name, own: j.Namespace == ns,
			why: restoresFrom(j.Spec.Job, &j.Status.JobStatus, j.Generation, j.Status.ObservedGeneration, path),
		})
	}
	return best.String(), nil
}

// restorer is a job that would restore from a savepoint (why is "" when it would not).
type restorer struct {
	kind, ns, name, why string
	own                 bool // in the snapshot's namespace
}

// or is the restorer restoredBy names of r and c.
func (r restorer) or(c restorer) restorer {
	switch {
	case c.why == "":
		return r
	case r.why == "" || c.own && !r.own:
		return c
	case r.own != c.own:
		return r
	}
	if cmp.Or(cmp.Compare(c.kind, r.kind), cmp.Compare(c.ns, r.ns), cmp.Compare(c.name, r.name)) < 0 {
		return c // FlinkDeployment sorts before FlinkSessionJob
	}
	return r
}

// String is how the snapshot's status names r: another namespace's job by its kind only.
func (r restorer) String() string {
	switch {
	case r.why == "":
		return ""
	case !r.own:
		return "a " + r.kind + " of another namespace (" + r.why + ")"
	}
	return r.kind + " " + r.name + " (" + r.why + ")"
}

// restoresFrom says why a job would restore from the savepoint at path ("" when it would
// not), paths compared in canonical form (samePath): it is its upgrade or last savepoint (as
// decide.WouldRestoreFrom says), or the initial savepoint of a job that has not started from
// it yet (no job yet, or a spec not yet observed, which may be a savepoint redeploy).
func restoresFrom(job *flinkv1beta1.JobSpec, js *flinkv1beta1.JobStatus, generation, observed int64, path string) string {
	sp := js.SavepointInfo
	switch {
	case samePath(js.UpgradeSavepointPath, path) || sp != nil && sp.LastSavepoint != nil && samePath(sp.LastSavepoint.Location, path):
		return "its upgrade or last savepoint"
	case job != nil && samePath(job.InitialSavepointPath, path) && (js.JobID == "" || observed < generation):
		return "its initial savepoint, not yet started from"
	}
	return ""
}

// samePath reports whether a and b name one savepoint: the same string, or the same
// canonical form (snapshot.SamePath: s3://b//x is s3://b/x).
func samePath(a, b string) bool {
	return a != "" && (a == b || snapshot.SamePath(a, b))
}

// observeOperation asks the JobManager about the snapshot's trigger and, for a completed
// checkpoint, its path.
func (o *SnapshotObserver) observeOperation(ctx context.Context, s *flinkv1beta1.FlinkStateSnapshot, cluster *flinkv1beta1.FlinkDeployment, jobID string, obs *snapshot.Observation) {
	ctx, cancel := withBudget(ctx, o.RESTBudget)
	defer cancel()
	api := o.Flink(cluster)
	if s.Spec.IsSavepoint() {
		obs.Operation = savepointObservation(ctx, api, jobID, s.Status.TriggerID)
		return
	}
	obs.Operation = checkpointObservation(ctx, api, jobID, s.Status.TriggerID)
	if op := obs.Operation; op != nil && op.Done && op.Failure == "" && !op.Lost {
		st, err := api.CheckpointDetails(ctx, jobID, op.CheckpointID)
		switch {
		case err != nil && !flink.IsNotFound(err):
			obs.Operation = nil // no answer: ask again
		case err != nil:
			obs.CheckpointPathError = err.Error()
		case st.ExternalPath == "":
			obs.CheckpointPathError = fmt.Sprintf("checkpoint %d is %s, without an external path", op.CheckpointID, st.ClassName)
		default:
			obs.CheckpointPath = st.ExternalPath
		}
	}
}
