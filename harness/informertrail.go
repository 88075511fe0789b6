package harness

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// informerTrail is one kind's informer trailing the API: each of the operator's writes of the
// kind reaches its reads a while after it was made, in the order made, as an informer applies
// the watch events in order but late. Two writes of one reconcile (the JobManager's and the
// TaskManagers' deletions) may so reach it one reconcile apart.
type informerTrail struct {
	until   time.Time     // writes made from then on reach the reads at once
	delay   time.Duration // each write reaches them within this
	pending []trailed     // not yet visible, oldest first
}

// trailed is one write the operator's reads do not see yet.
type trailed struct {
	key     client.ObjectKey
	before  client.Object // the object before the write; nil: there was none
	visible time.Time
}

// trailing returns the trail of o's kind while it holds writes back or may still, else nil.
func (f *apiFaults) trailing(o runtime.Object, now time.Time) *informerTrail {
	kind := kindOf(o)
	tr := f.trails[kind]
	if tr == nil {
		return nil
	}
	tr.pending = slices.DeleteFunc(tr.pending, func(w trailed) bool { return !now.Before(w.visible) })
	if len(tr.pending) == 0 && !now.Before(tr.until) {
		delete(f.trails, kind)
		return nil
	}
	return tr
}

// trailWrite runs the write do of obj; while obj's kind trails, it remembers what the write
// replaced, to be shown until a random delay (after the previous write's) has passed.
func (f *apiFaults) trailWrite(ctx context.Context, r client.Reader, obj client.Object, do func() error) error {
	now := f.now()
	tr := f.trailing(obj, now)
	if tr == nil || !now.Before(tr.until) {
		return do()
	}
	before := obj.DeepCopyObject().(client.Object)
	switch err := r.Get(ctx, client.ObjectKeyFromObject(obj), before); {
	case apierrors.IsNotFound(err):
		before = nil
	case err != nil:
		return do() // not read: not held back
	}
	if err := do(); err != nil {
		return err
	}
	visible := now.Add(time.Duration(f.rand(int64(tr.delay)) + 1))
	if n := len(tr.pending); n > 0 && visible.Before(tr.pending[n-1].visible) {
		visible = tr.pending[n-1].visible // in the order made
	}
	tr.pending = append(tr.pending, trailed{key: client.ObjectKeyFromObject(obj), before: before, visible: visible})
	return nil
}

// behind returns what the operator's reads show of key: the object before the oldest write of
// it not yet visible (nil: none), and whether one is held back.
func (tr *informerTrail) behind(key client.ObjectKey) (client.Object, bool) {
	for _, w := range tr.pending {
		if w.key == key {
			return w.before, true
		}
	}
	return nil, false
}

// get serves a read of the trailing kind.
func (tr *informerTrail) get(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	before, held := tr.behind(key)
	switch {
	case !held:
		return c.Get(ctx, key, obj, opts...)
	case before == nil:
		return apierrors.NewNotFound(schema.GroupResource{Resource: strings.ToLower(kindOf(obj)) + "s"}, key.Name)
	}
	return setShaped(obj, before)
}

// list serves a list of the trailing kind: the current items with each held-back write undone.
func (tr *informerTrail) list(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
	if err := c.List(ctx, list, opts...); err != nil {
		return err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return err
	}
	o := (&client.ListOptions{}).ApplyOptions(opts)
	sel := o.LabelSelector
	if sel == nil {
		sel = labels.Everything()
	}
	byKey := map[client.ObjectKey]runtime.Object{}
	for _, it := range items {
		byKey[client.ObjectKeyFromObject(it.(client.Object))] = it
	}
	done := map[client.ObjectKey]bool{}
	for _, w := range tr.pending {
		if done[w.key] {
			continue
		}
		done[w.key] = true
		delete(byKey, w.key)
		if w.before != nil && (o.Namespace == "" || w.key.Namespace == o.Namespace) && sel.Matches(labels.Set(w.before.GetLabels())) {
			byKey[w.key] = shaped(w.before, list)
		}
	}
	keys := make([]client.ObjectKey, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b client.ObjectKey) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	out := make([]runtime.Object, 0, len(keys))
	for _, k := range keys {
		out = append(out, byKey[k])
	}
	return meta.SetList(list, out)
}

// TrailInformer makes each of the operator's writes of kind (Deployment, Pod, ConfigMap or
// Service) made within d of virtual time reach its reads of the kind up to delay later, in
// the order made (the writes of others and its reads past the cache are current). A write of
// an object the cache holds as metadata only (a Pod, a Service) is not held back: what it
// replaced is not read.
func (w *World) TrailInformer(kind string, d, delay time.Duration) error {
	if laggableKinds[kind] == nil {
		return fmt.Errorf("no informer of kind %q can trail", kind)
	}
	if w.api.trails == nil {
		w.api.trails = map[string]*informerTrail{}
	}
	w.api.trails[kind] = &informerTrail{until: w.Clock.Now().Add(d), delay: max(delay, time.Second)}
	return nil
}
