package harness

import (
	"context"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/fakeflink"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

// checkSnapshots checks the FlinkStateSnapshot invariants:
//
//	N1 a COMPLETED snapshot has a path; a COMPLETED savepoint it triggered is in the store,
//	   taken under the trigger id of one of its attempts (never one taken twice, never
//	   another's);
//	N2 a savepoint a snapshot completed with is never disposed of while a FlinkDeployment
//	   or FlinkSessionJob would restore from it (decide.WouldRestoreFrom);
//	N3 a savepoint's record (a COMPLETED snapshot a job controls) never outlives its
//	   savepoint: the operator deletes the record before it disposes of the savepoint.
func (c *Checker) checkSnapshots() []string {
	snaps, err := c.w.Snapshots()
	if err != nil {
		return []string{"list snapshots: " + err.Error()}
	}
	if len(snaps) == 0 && len(c.snapshotPaths) == 0 {
		return nil // nothing to check (and no lists of the rest)
	}
	if c.snapshotPaths == nil {
		c.snapshotPaths = map[string]string{}
	}
	c.rememberSnapshotSavepoints(snaps)
	var out []string
	for i := range snaps {
		s := &snaps[i]
		if s.Status.State != flinkv1beta1.SnapshotCompleted {
			continue
		}
		if s.Status.Path == "" {
			out = append(out, fmt.Sprintf("N1: snapshot %s is COMPLETED without a path", s.Name))
			continue
		}
		if s.Spec.IsSavepoint() {
			c.snapshotPaths[s.Status.Path] = s.Name
		}
		if s.Spec.IsSavepoint() && !s.Spec.AlreadyExists() && s.DeletionTimestamp == nil {
			out = append(out, c.takenByAnAttempt(s)...)
		}
		if _, stored := c.w.Sim.Store.Get(s.Status.Path); !stored && s.DeletionTimestamp == nil && metav1.GetControllerOf(s) != nil {
			out = append(out, fmt.Sprintf("N3: record %s shows savepoint %s, which was disposed of", s.Name, s.Status.Path))
		}
	}
	return append(out, c.restorableKept()...)
}

// takenByAnAttempt checks that a completed savepoint snapshot's path is a savepoint in the
// store taken under one of its attempts' trigger ids.
func (c *Checker) takenByAnAttempt(s *flinkv1beta1.FlinkStateSnapshot) []string {
	snap, ok := c.w.Sim.Store.Get(s.Status.Path)
	if !ok {
		return []string{fmt.Sprintf("N1: snapshot %s is COMPLETED at %s, which is not in the store", s.Name, s.Status.Path)}
	}
	var attempts []string
	for k := range s.Status.Failures + 1 {
		attempts = append(attempts, decide.TriggerID(string(s.UID), "snapshot", int64(k)))
	}
	if snap.Kind != fakeflink.KindSavepoint || !slices.Contains(attempts, snap.TriggerID) {
		return []string{fmt.Sprintf("N1: snapshot %s is COMPLETED at %s, a %s taken under trigger %q, which is none of its %d attempts'",
			s.Name, s.Status.Path, snap.Kind, snap.TriggerID, len(attempts))}
	}
	return nil
}

// restorableKept checks N2 over every FlinkDeployment and FlinkSessionJob.
func (c *Checker) restorableKept() []string {
	jobs, err := c.jobStatuses()
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	for _, j := range jobs {
		for path, snap := range c.snapshotPaths {
			if _, stored := c.w.Sim.Store.Get(path); !stored && decide.WouldRestoreFrom(j.status, path) {
				out = append(out, fmt.Sprintf("N2: savepoint %s of snapshot %s was disposed of, but %s %s would restore from it", path, snap, j.kind, j.name))
			}
		}
	}
	return out
}

// jobStatus is the job status of one FlinkDeployment or FlinkSessionJob of the world.
type jobStatus struct {
	kind, name string
	status     *flinkv1beta1.JobStatus
}

// jobStatuses lists the job statuses of the world's FlinkDeployments and FlinkSessionJobs.
func (c *Checker) jobStatuses() ([]jobStatus, error) {
	ctx, ns := context.Background(), client.InNamespace(c.w.Namespace)
	var ds flinkv1beta1.FlinkDeploymentList
	var js flinkv1beta1.FlinkSessionJobList
	if err := c.w.Client.List(ctx, &ds, ns); err != nil {
		return nil, fmt.Errorf("list deployments: %w", err)
	}
	if err := c.w.Client.List(ctx, &js, ns); err != nil {
		return nil, fmt.Errorf("list session jobs: %w", err)
	}
	var out []jobStatus
	for i := range ds.Items {
		out = append(out, jobStatus{"FlinkDeployment", ds.Items[i].Name, &ds.Items[i].Status.JobStatus})
	}
	for i := range js.Items {
		out = append(out, jobStatus{"FlinkSessionJob", js.Items[i].Name, &js.Items[i].Status.JobStatus})
	}
	return out, nil
}

// rememberSnapshotSavepoints records, besides the paths of COMPLETED snapshots, every
// savepoint in storage taken under a trigger id of a snapshot's attempts (the next one
// included: its status write may not have happened yet), so that N2 also judges a savepoint
// that completed and was disposed of before its snapshot's status said COMPLETED.
func (c *Checker) rememberSnapshotSavepoints(snaps []flinkv1beta1.FlinkStateSnapshot) {
	if c.snapshotTriggers == nil {
		c.snapshotTriggers = map[string]string{}
	}
	for i := range snaps {
		s := &snaps[i]
		for k := range s.Status.Failures + 2 {
			c.snapshotTriggers[decide.TriggerID(string(s.UID), "snapshot", int64(k))] = s.Name
		}
	}
	for _, snap := range c.w.Sim.Store.List("") {
		if name, ok := c.snapshotTriggers[snap.TriggerID]; ok && snap.Kind == fakeflink.KindSavepoint {
			c.snapshotPaths[snap.Path] = name
		}
	}
}
