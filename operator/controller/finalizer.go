package controller

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/clip"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/decide"
	"github.com/flinkop/flinkop/operator/metrics"
)

// ensureFinalizer adds the finalizer name to a live object. It reports false for an object
// being deleted that no longer carries it: its cleanup is done and nothing is left to do.
func ensureFinalizer(ctx context.Context, c client.Client, obj client.Object, name string) (bool, error) {
	deleting := obj.GetDeletionTimestamp() != nil
	switch has := controllerutil.ContainsFinalizer(obj, name); {
	case deleting:
		return has, nil
	case !has:
		controllerutil.AddFinalizer(obj, name)
		if err := c.Update(ctx, obj); err != nil {
			return false, fmt.Errorf("add finalizer: %w", err)
		}
	}
	return true, nil
}

// releaseFinalizer removes the finalizer name once the object's cleanup is complete.
func releaseFinalizer(ctx context.Context, c client.Client, obj client.Object, name string) error {
	controllerutil.RemoveFinalizer(obj, name)
	if err := c.Update(ctx, obj); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("remove finalizer: %w", err)
	}
	return nil
}

// recordEvents records a decision's events on obj and counts them.
func recordEvents(rec EventRecorder, m *metrics.Recorder, obj runtime.Object, events []decide.Event) {
	for _, e := range events {
		rec.Event(obj, string(e.Type), e.Reason, e.Message)
		m.Event(e.Reason)
	}
}

// failReady marks the Ready condition of a FlinkDeployment or FlinkSessionJob false, for the
// error just put into its status.error (decide.FailReady); other kinds have no conditions.
func failReady(obj client.Object, now time.Time, reason string) {
	switch o := obj.(type) {
	case *flinkv1beta1.FlinkDeployment:
		decide.FailReady(&o.Status.CommonStatus, o.Status.Conditions, o.Generation, now, reason)
	case *flinkv1beta1.FlinkSessionJob:
		decide.FailReady(&o.Status.CommonStatus, o.Status.Conditions, o.Generation, now, reason)
	}
}

// reportActionFailure records a failed action as an ActionFailed Warning and, when the
// failure is permanent (act.IsPermanent), also in status.error (statusError, in obj: Apache's
// JSON shaped by ex for the kinds that write it, else the message) and in
// the Ready condition (failReady), so that it is visible where
// users look while the reconcile retries with backoff. decided is the error the decision
// itself reported (an invalid spec, say), which leads the message: it is usually what the
// user must fix first. Only the error changes: the state machine does not advance past the
// action that failed. It returns the error to retry with.
func reportActionFailure(ctx context.Context, c client.Client, rec EventRecorder, now time.Time, obj client.Object, statusError *string, decided, kind string, err error,
	ex *config.ExceptionOptions,
) error {
	msg := withDecided(flinkv1beta1.ErrorMessage(decided), fmt.Sprintf("%s failed: %v", kind, err))
	rec.Event(obj, corev1.EventTypeWarning, "ActionFailed", msg)
	value := msg
	if ex != nil {
		value = decide.ErrorJSON("ActionFailed", msg, *ex)
	}
	if act.IsPermanent(err) && *statusError != value {
		*statusError = value
		failReady(obj, now, "ActionFailed")
		if werr := c.Status().Update(ctx, obj); werr != nil {
			return fmt.Errorf("%s: %w (and status: %w)", kind, err, werr)
		}
	}
	return fmt.Errorf("%s: %w", kind, err)
}

// withDecided is failure led by decided, the decision's own error (see reportActionFailure),
// cut to clip.Status with room left for failure: decided may fill clip.Status alone.
func withDecided(decided, failure string) string {
	if decided == "" {
		return clip.String(failure, clip.Status)
	}
	failure = clip.String(failure, clip.Status/2)
	return clip.String(clip.String(decided, clip.Status-len(failure)-2)+"; "+failure, clip.Status)
}
