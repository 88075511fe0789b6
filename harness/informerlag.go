package harness

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
)

// laggableKinds are the kinds whose informer can lag (chaos.InformerLag), with a new empty list
// of each.
var laggableKinds = map[string]func() client.ObjectList{
	"Deployment": func() client.ObjectList { return &appsv1.DeploymentList{} },
	"Pod":        func() client.ObjectList { return act.PodMetadataList() },       // as the cache holds them
	"ConfigMap":  func() client.ObjectList { return act.ConfigMapMetadataList() }, // as the cache holds them
	"Service":    func() client.ObjectList { return metadataList("ServiceList") }, // as the cache holds them
}

// informerLag is one kind's informer behind the API: until until, reads of the kind are served
// from objs, the kind's objects at its first read in the window.
type informerLag struct {
	until     time.Time
	namespace string                             // the world's
	objs      map[client.ObjectKey]client.Object // nil: not read yet in the window
}

// kindOf is the kind of an object or list by its Go type (*appsv1.DeploymentList:
// Deployment), or of metadata by its GVK (a PartialObjectMetadataList of PodList: Pod).
func kindOf(o runtime.Object) string {
	switch o.(type) {
	case *metav1.PartialObjectMetadata, *metav1.PartialObjectMetadataList:
		return strings.TrimSuffix(o.GetObjectKind().GroupVersionKind().Kind, "List")
	}
	return strings.TrimSuffix(reflect.TypeOf(o).Elem().Name(), "List")
}

// shaped is a copy of obj shaped for a read into into: its metadata alone when into is
// metadata (PartialObjectMetadata or a list of them), else the whole object.
func shaped(obj client.Object, into runtime.Object) runtime.Object {
	switch into.(type) {
	case *metav1.PartialObjectMetadata, *metav1.PartialObjectMetadataList:
		m := &metav1.PartialObjectMetadata{ObjectMeta: *obj.(metav1.ObjectMetaAccessor).GetObjectMeta().(*metav1.ObjectMeta).DeepCopy()}
		m.SetGroupVersionKind(into.GetObjectKind().GroupVersionKind().GroupVersion().WithKind(kindOf(into)))
		return m
	}
	return obj.DeepCopyObject()
}

// lagging returns the lag of o's kind, nil when its informer is current.
func (f *apiFaults) lagging(o runtime.Object) *informerLag {
	kind := kindOf(o)
	lag := f.lags[kind]
	if lag != nil && !f.now().Before(lag.until) {
		delete(f.lags, kind)
		return nil
	}
	return lag
}

// load takes the snapshot at the window's first read.
func (l *informerLag) load(ctx context.Context, c client.Client, kind string) error {
	if l.objs != nil {
		return nil
	}
	list := laggableKinds[kind]()
	if err := c.List(ctx, list, client.InNamespace(l.namespace)); err != nil {
		return err
	}
	l.objs = map[client.ObjectKey]client.Object{}
	return meta.EachListItem(list, func(o runtime.Object) error {
		obj := o.(client.Object)
		l.objs[client.ObjectKeyFromObject(obj)] = obj.DeepCopyObject().(client.Object)
		return nil
	})
}

// get serves a read of the lagging kind.
func (l *informerLag) get(ctx context.Context, c client.Client, key client.ObjectKey, obj client.Object) error {
	if err := metadataOnly(obj); err != nil {
		return err
	}
	kind := kindOf(obj)
	if err := l.load(ctx, c, kind); err != nil {
		return err
	}
	snap, ok := l.objs[key]
	if !ok {
		return apierrors.NewNotFound(schema.GroupResource{Resource: strings.ToLower(kind) + "s"}, key.Name)
	}
	return setShaped(obj, snap)
}

// setShaped reads src into obj, shaped as obj asks (see shaped).
func setShaped(obj, src client.Object) error {
	reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(shaped(src, obj)).Elem())
	return nil
}

// list serves a list of the lagging kind by namespace and label selector (the operator lists
// by labels; the world's operator has no field indexes).
func (l *informerLag) list(ctx context.Context, c client.Client, list client.ObjectList, opts ...client.ListOption) error {
	if err := metadataOnly(list); err != nil {
		return err
	}
	if err := l.load(ctx, c, kindOf(list)); err != nil {
		return err
	}
	o := (&client.ListOptions{}).ApplyOptions(opts)
	if o.FieldSelector != nil && !o.FieldSelector.Empty() {
		return fmt.Errorf("a lagging informer serves no field selector (%s)", o.FieldSelector)
	}
	sel := o.LabelSelector
	if sel == nil {
		sel = labels.Everything()
	}
	// In the API server's order (namespace, then name): the operator reports the first pod
	// problem it finds, and a replayed seed must find the same one.
	keys := slices.SortedFunc(maps.Keys(l.objs), func(a, b client.ObjectKey) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	var items []runtime.Object
	for _, key := range keys {
		obj := l.objs[key]
		if (o.Namespace == "" || key.Namespace == o.Namespace) && sel.Matches(labels.Set(obj.GetLabels())) {
			items = append(items, shaped(obj, list))
		}
	}
	return meta.SetList(list, items)
}

// LagInformer makes the operator's reads of kind (Deployment, Pod, ConfigMap or Service) lag
// behind the API for d of virtual time, frozen at its first read, or with trail set trailing
// the operator's writes (TrailInformer); other kinds stay current.
func (w *World) LagInformer(kind string, d, trail time.Duration) error {
	if trail > 0 {
		return w.TrailInformer(kind, d, trail)
	}
	if laggableKinds[kind] == nil {
		return fmt.Errorf("no informer of kind %q can lag", kind)
	}
	if w.api.lags == nil {
		w.api.lags = map[string]*informerLag{}
	}
	w.api.lags[kind] = &informerLag{until: w.Clock.Now().Add(d), namespace: w.Namespace}
	return nil
}

// metadataList is an empty list of metadata of the core kind kind (ServiceList).
func metadataList(kind string) client.ObjectList {
	l := &metav1.PartialObjectMetadataList{}
	l.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind(kind))
	return l
}
