package act

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// IndexApp is the manager cache's index of Pods and ConfigMaps by their app label. Without it
// a cache list by label scans every Pod (ConfigMap) of the namespace: at 10,000 deployments
// in one namespace each reconcile would read 20,000 pods to find its JobManager's.
const IndexApp = "flinkop.app"

// IndexByApp registers IndexApp on Pods and ConfigMaps with a manager's field indexer.
func IndexByApp(ctx context.Context, idx client.FieldIndexer) error {
	byApp := func(o client.Object) []string {
		if app, ok := o.GetLabels()[LabelApp]; ok {
			return []string{app}
		}
		return nil
	}
	for _, obj := range []client.Object{&corev1.Pod{}, &corev1.ConfigMap{}} {
		if err := idx.IndexField(ctx, obj, IndexApp, byApp); err != nil {
			return fmt.Errorf("index %T by app label: %w", obj, err)
		}
	}
	return nil
}

// AppLister lists a resource's Pods or ConfigMaps: those of a namespace whose labels match a
// selector that names the app label.
type AppLister struct {
	// Indexed says the reader is a cache with IndexApp (see IndexByApp): the list reads the
	// index entry of the app instead of the whole namespace. A reader without the index (a
	// fake client, the API server) must leave it false: it refuses the field selector.
	Indexed bool
}

// List lists into list (a PodList or ConfigMapList) the objects of namespace ns matching sel.
func (l AppLister) List(ctx context.Context, r client.Reader, list client.ObjectList, ns string, sel client.MatchingLabels) error {
	opts := []client.ListOption{client.InNamespace(ns), sel}
	app, named := sel[LabelApp]
	switch list.(type) {
	case *corev1.PodList, *corev1.ConfigMapList:
		if l.Indexed && named {
			opts = append(opts, client.MatchingFields{IndexApp: app})
		}
	}
	return r.List(ctx, list, opts...)
}
