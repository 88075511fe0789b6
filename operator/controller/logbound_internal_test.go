package controller

import (
	"context"
	"errors"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/flinkop/flinkop/operator/clip"
)

// TestClippedErrors: a reconcile's error carrying a jar server's 4 MB reason phrase with a
// forged log line is logged as one line of at most clip.Log bytes, and still unwraps to what
// it wraps (a TerminalError stays terminal); no error stays no error.
func TestClippedErrors(t *testing.T) {
	huge := errors.New("fetch jar: 502 " + strings.Repeat("B", 4<<20) + "\nlevel=info msg=forged")
	for name, tc := range map[string]struct {
		err      error
		terminal bool
	}{
		"huge reason phrase": {err: huge},
		"terminal":           {err: reconcile.TerminalError(huge), terminal: true},
	} {
		t.Run(name, func(t *testing.T) {
			r := clippedErrors(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, tc.err }))
			_, err := r.Reconcile(t.Context(), reconcile.Request{})
			if msg := err.Error(); len(msg) > clip.Log || strings.Contains(msg, "\n") {
				t.Errorf("logged error is %d bytes (newline: %v), want one line of at most %d", len(msg), strings.Contains(msg, "\n"), clip.Log)
			}
			if !errors.Is(err, huge) {
				t.Error("the clipped error does not unwrap to the reconcile's")
			}
			if got := errors.Is(err, reconcile.TerminalError(nil)); got != tc.terminal {
				t.Errorf("terminal: %v, want %v", got, tc.terminal)
			}
		})
	}
	ok := clippedErrors(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil }))
	if _, err := ok.Reconcile(t.Context(), reconcile.Request{}); err != nil {
		t.Errorf("no error became %v", err)
	}
}
