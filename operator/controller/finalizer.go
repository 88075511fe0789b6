package controller

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

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
