package controller

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/decide"
)

// writeRecords writes the FlinkStateSnapshots that record obj's savepoints (act.WriteRecords)
// when opts has snapshot resources on. It runs before the reconcile's action and status write:
// an error returns to retry the whole reconcile, whose decision writes the same records again.
func writeRecords(ctx context.Context, c client.Client, obj client.Object, kind flinkv1beta1.JobKind, opts config.Options, r decide.Records) error {
	if !opts.SnapshotResources || r.Empty() {
		return nil
	}
	return act.WriteRecords(ctx, c, obj, kind, r)
}
