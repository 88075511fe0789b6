package act

import (
	"context"
	"errors"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/flink"
	"github.com/flinkop/flinkop/operator/snapshot"
)

// SnapshotFlinkAPI is what a snapshot's actions need of its job's JobManager.
type SnapshotFlinkAPI interface {
	TriggerSavepoint(ctx context.Context, jobID string, req flink.SavepointRequest) (string, error)
	TriggerCheckpoint(ctx context.Context, jobID, checkpointType, triggerID string) (string, error)
	DisposeSavepoint(ctx context.Context, path string) (string, error)
}

// ErrNoCluster is returned for a snapshot action whose job has no cluster to carry it out.
var ErrNoCluster = errors.New("the snapshot's job has no cluster")

// SnapshotExecutor carries out snapshot actions on the JobManager of the snapshot's job (a
// FlinkDeployment's own, or a session job's session cluster's).
type SnapshotExecutor struct {
	// Flink returns the REST client of a cluster's JobManager.
	Flink func(cluster *flinkv1beta1.FlinkDeployment) SnapshotFlinkAPI
}

// Execute carries out a. Triggers carry the snapshot's own trigger id, so repeating one after
// a lost status write starts no second operation. A checkpoint is always FULL (Apache's
// choice: a manual checkpoint is meant to stand alone).
func (e *SnapshotExecutor) Execute(ctx context.Context, cluster *flinkv1beta1.FlinkDeployment, a snapshot.Action) error {
	if a.Kind == snapshot.ActNone {
		return nil
	}
	if cluster == nil {
		return ErrNoCluster
	}
	api := e.Flink(cluster)
	switch a.Kind {
	case snapshot.ActTriggerSavepoint:
		_, err := api.TriggerSavepoint(ctx, a.JobID, flink.SavepointRequest{TargetDirectory: a.TargetDirectory, FormatType: a.FormatType, TriggerID: a.TriggerID})
		return wrap("trigger savepoint", err)
	case snapshot.ActTriggerCheckpoint:
		_, err := api.TriggerCheckpoint(ctx, a.JobID, "FULL", a.TriggerID)
		return wrap("trigger checkpoint", err)
	case snapshot.ActDispose:
		_, err := api.DisposeSavepoint(ctx, a.Path)
		return wrap("dispose of savepoint "+a.Path, err)
	}
	return nil
}
