package controller

import (
	"context"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/source"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
)

// inScope reports whether the operator reconciles obj now: in a watched namespace, with
// labels its label selector matches (config.Scope, which a reload of the options changes). A
// resource out of scope is left as it is, finalizer and all, as the Apache operator leaves the
// resources of a namespace it stopped watching.
func inScope(live *config.Live, obj client.Object) bool {
	return admits(live.Scope(), obj)
}

// admits reports whether scope s admits obj. The label selector is the user's: an object the
// operator made for another resource (a blue/green child, a savepoint's FlinkStateSnapshot
// record, controlled by their owner) carries the operator's labels, not its owner's, and is
// admitted in a watched namespace.
func admits(s config.Scope, obj client.Object) bool {
	if owner := metav1.GetControllerOf(obj); owner != nil && strings.HasPrefix(owner.APIVersion, flinkv1beta1.GroupVersion.Group+"/") {
		return s.Watches(obj.GetNamespace())
	}
	return s.Admits(obj.GetNamespace(), obj.GetLabels())
}

// ScopeWatch enqueues, when the operator's scope changes while it runs, the resources the new
// scope admits and the old did not: nothing else would bring them to a reconciler before
// their next change. A resource the new scope leaves out needs nothing: its next reconcile
// ends at once.
type ScopeWatch struct {
	live    *config.Live
	reader  client.Reader
	kinds   []scopeKind
	changes <-chan struct{}
	old     config.Scope // the scope the controllers have seen
}

type scopeKind struct {
	list func() client.ObjectList
	ch   chan event.GenericEvent
}

// NewScopeWatch watches live's scope and lists resources through reader (the manager's cache).
// It takes the scope as it is now for the one the controllers start with.
func NewScopeWatch(live *config.Live, reader client.Reader) *ScopeWatch {
	return &ScopeWatch{live: live, reader: reader, changes: live.Changes(), old: live.Scope()}
}

// source is a controller's source of the resources of one kind that the scope newly admits
// (nil: no watch). SetupWithManager asks for it: a channel no controller reads would block the
// watch.
func (w *ScopeWatch) source(list func() client.ObjectList) source.Source {
	if w == nil {
		return nil
	}
	k := scopeKind{list: list, ch: make(chan event.GenericEvent)}
	w.kinds = append(w.kinds, k)
	return source.Channel(k.ch, &handler.EnqueueRequestForObject{})
}

// Start follows the scope until ctx ends (a leader's runnable: the controllers it feeds run
// on the leader only).
func (w *ScopeWatch) Start(ctx context.Context) error {
	log := ctrl.Log.WithName("scope")
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-w.changes:
		}
		now := w.live.Scope()
		if now.Equal(w.old) {
			continue
		}
		log.Info("the operator's scope changed", "from", w.old.String(), "to", now.String())
		admitted, err := w.newlyAdmitted(ctx, w.old, now)
		if err != nil {
			// The scope the controllers have seen stays the old one: the next change of the
			// options lists again everything admitted since.
			log.Error(err, "resources the new scope admits not listed: they are reconciled at their next change, at the next scope change, or at the next resync")
			continue
		}
		for _, a := range admitted {
			select {
			case a.ch <- event.GenericEvent{Object: a.obj}:
			case <-ctx.Done():
				return nil
			}
		}
		w.old = now
	}
}

type admittedObject struct {
	obj client.Object
	ch  chan event.GenericEvent
}

// newlyAdmitted lists the resources of every kind that now admits and old did not.
func (w *ScopeWatch) newlyAdmitted(ctx context.Context, old, now config.Scope) ([]admittedObject, error) {
	var out []admittedObject
	for _, k := range w.kinds {
		list := k.list()
		if err := w.reader.List(ctx, list); err != nil {
			return out, err
		}
		objs, err := meta.ExtractList(list)
		if err != nil {
			return out, err
		}
		for _, o := range objs {
			obj, ok := o.(client.Object)
			if ok && admits(now, obj) && !admits(old, obj) {
				out = append(out, admittedObject{obj: obj, ch: k.ch})
			}
		}
	}
	return out, nil
}

// Listers of the four kinds, for ScopeWatch.source.
func deploymentList() client.ObjectList { return &flinkv1beta1.FlinkDeploymentList{} }
func sessionJobList() client.ObjectList { return &flinkv1beta1.FlinkSessionJobList{} }
func snapshotList() client.ObjectList   { return &flinkv1beta1.FlinkStateSnapshotList{} }
func blueGreenList() client.ObjectList  { return &flinkv1beta1.FlinkBlueGreenDeploymentList{} }

// withRescan adds a ScopeWatch source to a controller's builder (none when src is nil).
func withRescan(b *builder.Builder, src source.Source) *builder.Builder {
	if src == nil {
		return b
	}
	return b.WatchesRawSource(src)
}
