package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/decide"
)

// minFetchRetry is the soonest a job waiting out a fetch back-off is looked at again.
const minFetchRetry = time.Second

// fetchStopped reports whether err is the jar fetch slots' stopping a submission: no slot
// free (*act.RetryLaterError), a failed fetch or its back-off (*act.FetchBackoffError), or a
// fetch cancelled (act.ErrFetchCancelled).
func fetchStopped(err error) bool {
	return err != nil && (errors.As(err, new(*act.RetryLaterError)) || errors.As(err, new(*act.FetchBackoffError)) ||
		errors.Is(err, act.ErrFetchCancelled))
}

// fetchWait is the result of a reconcile of j whose action (kind) the fetch slots stopped:
//   - cancelled: nothing to report; the change or deletion that cancelled the fetch
//     reconciles the job again;
//   - no slot free: the job waits in line, is woken when a slot is kept for it, and tries
//     again after the refusal's delay at the latest, in the lane it came in;
//   - a failed fetch: a Warning (ActionFailed) and status.error say why and when the job tries
//     again; while it waits out that back-off nothing is recorded, and status.error is written
//     again only if it was lost.
//
// The job is looked at again when its back-off ends, not retried as an error, which would
// take the slot again within seconds. decided is the decision's own error, which leads the
// message (as in reportActionFailure).
func (r *FlinkSessionJobReconciler) fetchWait(ctx context.Context, j *flinkv1beta1.FlinkSessionJob, decided, kind string, err error,
	ex config.ExceptionOptions,
) (ctrl.Result, error) {
	var later *act.RetryLaterError
	var backoff *act.FetchBackoffError
	switch {
	case errors.Is(err, act.ErrFetchCancelled):
		log.FromContext(ctx).V(1).Info("jar fetch cancelled", "action", kind)
		return ctrl.Result{}, nil
	case errors.As(err, &later):
		log.FromContext(ctx).V(1).Info("action waits for a jar fetch slot", "action", kind, "after", later.After)
		return keepLane(later.After), nil
	case !errors.As(err, &backoff):
		return ctrl.Result{}, err
	}
	now := r.Clock.Now()
	msg := withDecided(flinkv1beta1.ErrorMessage(decided), fmt.Sprintf("%s failed: %v", kind, backoff))
	if !backoff.Waiting {
		log.FromContext(ctx).Info("jar fetch failed", "action", kind, "error", msg)
		r.Recorder.Event(j, corev1.EventTypeWarning, "ActionFailed", msg)
		r.Metrics.ReconcileError(kind)
	}
	if value := decide.ErrorJSON("ActionFailed", msg, ex); j.Status.Error != value {
		j.Status.Error = value
		failReady(j, now, "ActionFailed")
		if werr := r.Client.Status().Update(ctx, j); werr != nil {
			statusTooLarge(r.Recorder, j, werr)
			return statusWriteFailed(ctx, r.Metrics, fmt.Errorf("update status: %w", werr))
		}
	}
	return ctrl.Result{RequeueAfter: max(backoff.At.Sub(now), minFetchRetry)}, nil
}

// fetchCancels stops the jar fetch of a session job that is being deleted, is gone, or whose
// spec changed: the job's reconcile holds the fetch, and would see the change only once the
// fetch is over (a slow jar server's, minutes later), holding a fetch slot meanwhile. It
// enqueues nothing; the builder's handlers do.
func fetchCancels(slots *act.FetchSlots) handler.EventHandler {
	return handler.Funcs{
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, _ workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if e.ObjectNew == nil {
				return
			}
			key := client.ObjectKeyFromObject(e.ObjectNew)
			if e.ObjectNew.GetDeletionTimestamp() != nil {
				slots.Cancel(key)
				return
			}
			slots.CancelOutdated(key, e.ObjectNew.GetGeneration())
		},
		DeleteFunc: func(_ context.Context, e event.DeleteEvent, _ workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if e.Object != nil {
				slots.Forget(client.ObjectKeyFromObject(e.Object))
			}
		},
	}
}
