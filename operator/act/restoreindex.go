package act

import (
	"context"
	"fmt"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/snapshot"
)

// IndexRestorePath is the manager cache's index of FlinkDeployments and FlinkSessionJobs by
// the canonical paths of the savepoints they could restore from (RestorePaths): a snapshot's
// disposal asks it, across every namespace the cache holds, whether any job would restore
// from its savepoint, instead of reading every job of the fleet.
const IndexRestorePath = "flinkop.job.restorepath"

// RestorePathKey is the IndexRestorePath value of path: its canonical form, or path as
// written when it has none (snapshot.CanonicalPath). A path already canonical is returned
// itself, so the index shares the cached object's string.
func RestorePathKey(path string) string {
	if c, err := snapshot.CanonicalPath(path); err == nil && c != path {
		return c
	}
	return path
}

// RestorePaths is IndexRestorePath's function: the keys (RestorePathKey) of a FlinkDeployment's
// or FlinkSessionJob's upgrade savepoint, last savepoint and initial savepoint, each once.
// The initial savepoint is indexed whether or not the job started from it already: the
// reader judges that (observe.SnapshotObserver).
func RestorePaths(o client.Object) []string {
	var job *flinkv1beta1.JobSpec
	var js *flinkv1beta1.JobStatus
	switch r := o.(type) {
	case *flinkv1beta1.FlinkDeployment:
		job, js = r.Spec.Job, &r.Status.JobStatus
	case *flinkv1beta1.FlinkSessionJob:
		job, js = r.Spec.Job, &r.Status.JobStatus
	default:
		return nil
	}
	paths := []string{js.UpgradeSavepointPath}
	if sp := js.SavepointInfo; sp != nil && sp.LastSavepoint != nil {
		paths = append(paths, sp.LastSavepoint.Location)
	}
	if job != nil {
		paths = append(paths, job.InitialSavepointPath)
	}
	var out []string
	for _, p := range paths {
		if k := RestorePathKey(p); p != "" && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// IndexJobsByRestorePath registers IndexRestorePath on FlinkDeployments and FlinkSessionJobs
// with a manager's field indexer.
func IndexJobsByRestorePath(ctx context.Context, idx client.FieldIndexer) error {
	for _, obj := range []client.Object{&flinkv1beta1.FlinkDeployment{}, &flinkv1beta1.FlinkSessionJob{}} {
		if err := idx.IndexField(ctx, obj, IndexRestorePath, RestorePaths); err != nil {
			return fmt.Errorf("index %T by restore path: %w", obj, err)
		}
	}
	return nil
}

// RestoreLister lists the FlinkDeployments and FlinkSessionJobs of every namespace that may
// restore from a savepoint.
type RestoreLister struct {
	// Indexed says the reader is a cache with IndexRestorePath. Without it the lists hold
	// every FlinkDeployment and FlinkSessionJob (the harness's worlds and tests, which are
	// small, and a real API server, which serves no custom field selector).
	Indexed bool
}

// List returns the jobs whose RestorePaths hold path's key (all jobs when not Indexed): the
// caller judges each. The items are the reader's own (client.UnsafeDisableDeepCopy): read
// them, never change them.
func (l RestoreLister) List(ctx context.Context, r client.Reader, path string) ([]flinkv1beta1.FlinkDeployment, []flinkv1beta1.FlinkSessionJob, error) {
	opts := []client.ListOption{client.UnsafeDisableDeepCopy} // every namespace
	if l.Indexed {
		opts = append(opts, client.MatchingFields{IndexRestorePath: RestorePathKey(path)})
	}
	var ds flinkv1beta1.FlinkDeploymentList
	if err := r.List(ctx, &ds, opts...); err != nil {
		return nil, nil, fmt.Errorf("list FlinkDeployments: %w", err)
	}
	var js flinkv1beta1.FlinkSessionJobList
	if err := r.List(ctx, &js, opts...); err != nil {
		return nil, nil, fmt.Errorf("list FlinkSessionJobs: %w", err)
	}
	return ds.Items, js.Items, nil
}
