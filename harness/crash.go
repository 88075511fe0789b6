package harness

import (
	"context"
	"errors"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// errOperatorCrashed stops a reconcile right after an API write: the operator process dies
// between two writes (Sieve's intermediate states).
var errOperatorCrashed = errors.New("operator crashed (simulated) right after an API write")

// crashingClient wraps the operator's client: once armed with k, the k-th write of the
// operator (the write itself succeeds) is followed by a crash.
type crashingClient struct {
	armed  int // crash after this many more writes; 0 = disarmed
	writes int
}

// wrap returns c with the crash hook on every write.
func (cc *crashingClient) wrap(c client.WithWatch) client.Client {
	after := func(err error) error {
		if err != nil || cc.armed == 0 {
			return err
		}
		cc.writes++
		if cc.writes >= cc.armed {
			cc.armed, cc.writes = 0, 0
			return errOperatorCrashed
		}
		return nil
	}
	return interceptor.NewClient(c, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			return after(c.Create(ctx, obj, opts...))
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			return after(c.Update(ctx, obj, opts...))
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			return after(c.Patch(ctx, obj, p, opts...))
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			return after(c.Delete(ctx, obj, opts...))
		},
		DeleteAllOf: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteAllOfOption) error {
			return after(c.DeleteAllOf(ctx, obj, opts...))
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			return after(c.SubResource(sub).Update(ctx, obj, opts...))
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			return after(c.SubResource(sub).Patch(ctx, obj, p, opts...))
		},
	})
}

// CrashOperatorAfterWrite arms the operator to crash right after its k-th next API write
// (k ≥ 1); the world restarts it, as Kubernetes restarts a crashed pod.
func (w *World) CrashOperatorAfterWrite(k int) { w.crash.armed, w.crash.writes = max(k, 1), 0 }
