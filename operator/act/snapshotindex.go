package act

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// IndexSnapshotJob is the manager cache's index of FlinkStateSnapshots by the job they
// reference ("<kind>/<name>", SnapshotJobKey): a job's reconcile reads its snapshots through
// it instead of every snapshot of the namespace.
const IndexSnapshotJob = "flinkop.snapshot.job"

// SnapshotJobKey is the IndexSnapshotJob value of a job of kind named name.
func SnapshotJobKey(kind flinkv1beta1.JobKind, name string) string { return string(kind) + "/" + name }

// IndexSnapshotsByJob registers IndexSnapshotJob with a manager's field indexer (only with the
// FlinkStateSnapshot CRD installed: the index starts the kind's informer).
func IndexSnapshotsByJob(ctx context.Context, idx client.FieldIndexer) error {
	err := idx.IndexField(ctx, &flinkv1beta1.FlinkStateSnapshot{}, IndexSnapshotJob, func(o client.Object) []string {
		s, ok := o.(*flinkv1beta1.FlinkStateSnapshot)
		if !ok || s.Spec.JobReference == nil || s.Spec.JobReference.Name == "" {
			return nil
		}
		return []string{SnapshotJobKey(s.Spec.JobReference.Kind, s.Spec.JobReference.Name)}
	})
	if err != nil {
		return fmt.Errorf("index FlinkStateSnapshots by job: %w", err)
	}
	return nil
}

// SnapshotLister lists the FlinkStateSnapshots that reference a job.
type SnapshotLister struct {
	// Enabled says snapshot resources are on (their CRD installed): off, List finds none.
	Enabled bool
	// Indexed says the reader is a cache with IndexSnapshotJob; without it the list reads
	// the namespace's snapshots and keeps the job's.
	Indexed bool
}

// List returns the snapshots of namespace ns whose job reference names the job of kind
// named name.
func (l SnapshotLister) List(ctx context.Context, r client.Reader, ns string, kind flinkv1beta1.JobKind, name string) ([]flinkv1beta1.FlinkStateSnapshot, error) {
	if !l.Enabled {
		return nil, nil
	}
	var list flinkv1beta1.FlinkStateSnapshotList
	opts := []client.ListOption{client.InNamespace(ns)}
	if l.Indexed {
		opts = append(opts, client.MatchingFields{IndexSnapshotJob: SnapshotJobKey(kind, name)})
	}
	if err := r.List(ctx, &list, opts...); err != nil {
		return nil, fmt.Errorf("list FlinkStateSnapshots: %w", err)
	}
	out := list.Items[:0]
	for _, s := range list.Items {
		if ref := s.Spec.JobReference; ref != nil && ref.Kind == kind && ref.Name == name {
			out = append(out, s)
		}
	}
	return out, nil
}

// IndexSessionJobCluster is the manager cache's index of FlinkSessionJobs by their session
// cluster (spec.deploymentName): a session cluster's reconcile reads its jobs through it
// instead of every session job of the namespace.
const IndexSessionJobCluster = "flinkop.sessionjob.cluster"

// IndexSessionJobsByCluster registers IndexSessionJobCluster with a manager's field indexer.
func IndexSessionJobsByCluster(ctx context.Context, idx client.FieldIndexer) error {
	err := idx.IndexField(ctx, &flinkv1beta1.FlinkSessionJob{}, IndexSessionJobCluster, func(o client.Object) []string {
		if j, ok := o.(*flinkv1beta1.FlinkSessionJob); ok && j.Spec.DeploymentName != "" {
			return []string{j.Spec.DeploymentName}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("index FlinkSessionJobs by session cluster: %w", err)
	}
	return nil
}
