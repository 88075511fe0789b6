package controller

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/flinkop/flinkop/operator/metrics"
)

// ConflictRetry is how soon a reconcile whose status write lost a race runs again. The watch
// brings the newer version as well; this covers a cache that has not seen it yet.
const ConflictRetry = time.Second

// statusWriteFailed is the reconcile's result after a failed status write. A conflict means the
// resource changed since it was read (a spec edit, another writer): the action already done is
// idempotent and the next reconcile decides again on the newer version, so it is retried
// quietly and counted, not reported as an error. Anything else is an error, retried with
// back-off.
func statusWriteFailed(ctx context.Context, m *metrics.Recorder, err error) (ctrl.Result, error) {
	if quietConflict(ctx, m, "status", err) {
		return keepLane(ConflictRetry), nil
	}
	m.ReconcileError("status")
	return ctrl.Result{}, err
}

// finalizerFailed is the reconcile's result when ensureFinalizer did not let it proceed: a
// conflict (the cache's copy is behind the resource, as at 10,000 deployments when the watch
// lags by more than FenceTimeout) is retried quietly after ConflictRetry and counted with
// the status conflicts; any other error is returned, retried with back-off; no error (the
// resource is gone) ends the reconcile.
func finalizerFailed(ctx context.Context, m *metrics.Recorder, err error) (ctrl.Result, error) {
	if quietConflict(ctx, m, "finalizer", err) {
		return keepLane(ConflictRetry), nil
	}
	return ctrl.Result{}, err
}

// quietConflict reports whether err, from a write of what, is a conflict; one is counted and
// logged at debug level only, for a retry after ConflictRetry.
func quietConflict(ctx context.Context, m *metrics.Recorder, what string, err error) bool {
	if !apierrors.IsConflict(err) {
		return false
	}
	m.StatusConflict()
	log.FromContext(ctx).V(1).Info(what+" write conflict, retrying", "error", err.Error())
	return true
}
