package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// errOperatorCrashed stops a reconcile right after an API write: the operator process dies
// between two writes (Sieve's intermediate states).
var errOperatorCrashed = errors.New("operator crashed (simulated) right after an API write")

// apiFaults sits between the operator and the API and injects the API-level faults: a crash
// right after the k-th write, writes refused with 409 Conflict or 500, and reads served from a
// lagging snapshot (an informer cache that has not caught up). The world wraps a CacheView
// in it: every read returns what the operator's cache would keep of the object.
type apiFaults struct {
	now func() time.Time

	total int // successful writes so far
	// snapshotWrites counts the writes (tried) of FlinkStateSnapshots.
	snapshotWrites int

	crashAfter int // crash after this many more writes; 0 = disarmed
	writes     int

	failWrites int // the next failWrites writes fail with failCode, without effect
	failCode   int

	staleUntil time.Time                // reads are stale until then
	stale      map[string]client.Object // the first read of each object in the window

	lags   map[string]*informerLag   // kind → its informer, while it lags behind the API
	trails map[string]*informerTrail // kind → its informer, while it trails the operator's writes
	rand   func(n int64) int64       // the world's seeded source: a trailed write's delay

	downUntil time.Time // every call fails with 503 until then

	// conflict reports a write refused with 409 Conflict: the operator retries those quietly,
	// so the world traces them here.
	conflict func(obj client.Object, err error)

	// replaced are, per FlinkDeployment or FlinkSessionJob, the resourceVersions this operator
	// process's own writes replaced (the last few); staleWrites are the writes refused with a
	// conflict that were made on one of them (invariant 9).
	replaced    map[string][]string
	staleWrites []string
}

// maxReplaced bounds the versions remembered per resource for invariant 9.
const maxReplaced = 8

// ownResource is the key of a FlinkDeployment or FlinkSessionJob for invariant 9 ("" for
// other kinds: the operator writes those on copies it reads anew).
func ownResource(obj client.Object) string {
	switch obj.(type) {
	case *flinkv1beta1.FlinkDeployment, *flinkv1beta1.FlinkSessionJob:
		return fmt.Sprintf("%T/%s/%s", obj, obj.GetNamespace(), obj.GetName())
	}
	return ""
}

// judge records a write of obj made on version before: a success replaced before; a conflict
// on a version the process's own write had replaced means it acted on a copy from before its
// own write (invariant 9).
func (f *apiFaults) judge(obj client.Object, before string, err error) {
	key := ownResource(obj)
	if key == "" || before == "" {
		return
	}
	switch {
	case err == nil:
		if f.replaced == nil {
			f.replaced = map[string][]string{}
		}
		f.replaced[key] = append(f.replaced[key], before)
		if rs := f.replaced[key]; len(rs) > maxReplaced {
			f.replaced[key] = rs[len(rs)-maxReplaced:]
		}
	case apierrors.IsConflict(err) && slices.Contains(f.replaced[key], before):
		f.staleWrites = append(f.staleWrites, fmt.Sprintf("%s: written on version %s, which the operator's own write had replaced (invariant 9)", obj.GetName(), before))
	}
}

// MaxObjectBytes is the largest object the world's API stores, as etcd's request limit
// (1.5 MiB) bounds a real API server: a larger write fails with 413.
const MaxObjectBytes = 3 << 19

// unavailable is the error of every call while the API server is down.
func (f *apiFaults) unavailable() error {
	if f.now().Before(f.downUntil) {
		return apierrors.NewServiceUnavailable("the API server is unavailable (simulated)")
	}
	return nil
}

// wrap returns c with the fault hooks on every read and write.
func (f *apiFaults) wrap(c client.WithWatch) client.Client {
	return interceptor.NewClient(c, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			return f.get(ctx, c, key, obj, opts...)
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			if err := f.unavailable(); err != nil {
				return err
			}
			if lag := f.lagging(list); lag != nil {
				return lag.list(ctx, c, list, opts...)
			}
			if tr := f.trailing(list, f.now()); tr != nil {
				return tr.list(ctx, c, list, opts...)
			}
			return c.List(ctx, list, opts...)
		},
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			return f.trailedWrite(ctx, c, obj, func() error { return c.Create(ctx, obj, opts...) })
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			return f.trailedWrite(ctx, c, obj, func() error { return c.Update(ctx, obj, opts...) })
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			return f.trailedWrite(ctx, c, obj, func() error { return c.Patch(ctx, obj, p, opts...) })
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			return f.trailedWrite(ctx, c, obj, func() error { return c.Delete(ctx, obj, opts...) })
		},
		DeleteAllOf: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteAllOfOption) error {
			return f.write(obj, func() error { return c.DeleteAllOf(ctx, obj, opts...) })
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			return f.write(obj, func() error { return c.SubResource(sub).Update(ctx, obj, opts...) })
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			return f.write(obj, func() error { return c.SubResource(sub).Patch(ctx, obj, p, opts...) })
		},
	})
}

// trailedWrite runs one API write of a kind an informer trail may hold back (see trailWrite)
// through the armed faults.
func (f *apiFaults) trailedWrite(ctx context.Context, r client.Reader, obj client.Object, do func() error) error {
	return f.write(obj, func() error { return f.trailWrite(ctx, r, obj, do) })
}

// write runs one API write through the armed faults.
func (f *apiFaults) write(obj client.Object, do func() error) error {
	if _, ok := obj.(*flinkv1beta1.FlinkStateSnapshot); ok {
		f.snapshotWrites++ // the world looks at its snapshots again (discoverSnapshots)
	}
	err := f.tryWrite(obj, do)
	if apierrors.IsConflict(err) && f.conflict != nil {
		f.conflict(obj, err)
	}
	return err
}

func (f *apiFaults) tryWrite(obj client.Object, do func() error) error {
	if err := f.unavailable(); err != nil {
		return err
	}
	if data, err := json.Marshal(obj); err == nil && len(data) > MaxObjectBytes {
		return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("etcdserver: request is too large (%d bytes, simulated)", len(data)))
	}
	if f.failWrites > 0 {
		f.failWrites--
		gr := schema.GroupResource{Resource: fmt.Sprintf("%T", obj)}
		if f.failCode == 409 {
			return apierrors.NewConflict(gr, obj.GetName(), errors.New("the object has been modified (simulated)"))
		}
		return apierrors.NewInternalError(errors.New("etcdserver: request timed out (simulated)"))
	}
	before := obj.GetResourceVersion()
	err := do()
	f.judge(obj, before, err)
	if err != nil {
		return err
	}
	f.total++
	if f.crashAfter == 0 {
		return nil
	}
	f.writes++
	if f.writes >= f.crashAfter {
		f.crashAfter, f.writes = 0, 0
		return errOperatorCrashed
	}
	return nil
}

// get serves a read, from the lagging snapshot while stale reads are on: the first read of an
// object in the window is fresh, later ones see that same version, whatever was written since.
func (f *apiFaults) get(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if err := f.unavailable(); err != nil {
		return err
	}
	if lag := f.lagging(obj); lag != nil {
		return lag.get(ctx, c, key, obj)
	}
	if tr := f.trailing(obj, f.now()); tr != nil {
		return tr.get(ctx, c, key, obj, opts...)
	}
	if !f.now().Before(f.staleUntil) {
		f.stale = nil
		return c.Get(ctx, key, obj, opts...)
	}
	id := fmt.Sprintf("%T/%s/%s", obj, kindOf(obj), key)
	if snap, ok := f.stale[id]; ok {
		reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(snap.DeepCopyObject()).Elem())
		return nil
	}
	if err := c.Get(ctx, key, obj, opts...); err != nil {
		return err
	}
	if f.stale == nil {
		f.stale = map[string]client.Object{}
	}
	f.stale[id] = obj.DeepCopyObject().(client.Object)
	return nil
}

// APIWrites is how many API writes of the operator succeeded so far.
func (w *World) APIWrites() int { return w.api.total }

// CrashOperatorAfterWrite arms the operator to crash right after its k-th next API write
// (k ≥ 1); the world restarts it, as Kubernetes restarts a crashed pod.
func (w *World) CrashOperatorAfterWrite(k int) { w.api.crashAfter, w.api.writes = max(k, 1), 0 }

// FailAPIWrites makes the operator's next n API writes fail with code (409 Conflict or 500)
// without taking effect.
func (w *World) FailAPIWrites(code, n int) { w.api.failCode, w.api.failWrites = code, n }

// StaleReads serves the operator's reads from a lagging snapshot for d of virtual time.
func (w *World) StaleReads(d time.Duration) {
	w.api.staleUntil, w.api.stale = w.Clock.Now().Add(d), nil
}

// DropWatchEvents makes the operator miss the next n watch events of its resources (spec
// changes and deletions): it sees them only at its next periodic reconcile.
func (w *World) DropWatchEvents(n int) { w.dropEvents = n }

// APIUnavailable fails every operator call with 503 for d of virtual time; then the API server
// is back after a restart: the operator's watches re-list and every resource is reconciled.
func (w *World) APIUnavailable(d time.Duration) {
	w.api.downUntil = w.Clock.Now().Add(d)
	w.Schedule(d, func() {
		w.Trace.add(w.Clock.Now(), "fault", "", "API server back after a restart: watches re-list")
		for name := range w.due {
			w.due[name] = w.Clock.Now()
		}
	})
}
