package controller

import (
	"context"
	"errors"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/flinkop/flinkop/operator/clip"
)

// clippedError is a reconcile's error as controller-runtime logs it ("Reconciler error"): its
// first line cut to clip.Log bytes, with invalid UTF-8 and control characters replaced, so
// that a JobManager's or a jar server's text can neither flood the log nor forge a line. It
// unwraps to the error itself (a TerminalError stays one). A resource whose reconcile keeps
// failing is logged at most once per RepeatedErrorLogInterval (BoundRepeatedErrors).
type clippedError struct{ err error }

func (e clippedError) Error() string { return clip.Line(e.err.Error(), clip.Log) }

func (e clippedError) Unwrap() error { return e.err }

// clippedErrors returns r's errors clipped (see clippedError).
func clippedErrors(r reconcile.Reconciler) reconcile.Reconciler {
	return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		res, err := r.Reconcile(ctx, req)
		if err != nil && !errors.As(err, new(clippedError)) {
			err = clippedError{err}
		}
		return res, err
	})
}
