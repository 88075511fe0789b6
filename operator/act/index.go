package act

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// IndexApp is the manager cache's index of JobManager pods and Flink's HA ConfigMaps by their
// app label. Without it a cache list by label scans every pod (ConfigMap) of the namespace: at
// 10,000 deployments in one namespace each reconcile would read 10,000 pods to find its
// JobManager's. The operator's own ConfigMaps are read by name and left out of the index
// (each entry costs two sets: controller-runtime keys it by namespace and across namespaces).
const IndexApp = "flinkop.app"

// IndexByApp registers IndexApp on Pods and HA ConfigMaps (the metadata-only informers the
// cache holds them in, which this creates: see MetadataOnly) with a manager's field indexer.
func IndexByApp(ctx context.Context, idx client.FieldIndexer) error {
	byApp := func(o client.Object) []string {
		if app, ok := o.GetLabels()[LabelApp]; ok {
			return []string{app}
		}
		return nil
	}
	haByApp := func(o client.Object) []string {
		if o.GetLabels()[LabelConfigMapType] != ConfigMapTypeHA {
			return nil
		}
		return byApp(o)
	}
	if err := idx.IndexField(ctx, PodMetadata(), IndexApp, byApp); err != nil {
		return fmt.Errorf("index pods by app label: %w", err)
	}
	if err := idx.IndexField(ctx, ConfigMapMetadata("", ""), IndexApp, haByApp); err != nil {
		return fmt.Errorf("index HA ConfigMaps by app label: %w", err)
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

// List lists into list (ConfigMap or pod metadata: ConfigMapMetadataList, PodMetadataList) the objects of
// namespace ns matching sel. A ConfigMap list reads the index only when sel selects Flink's
// HA ConfigMaps, the only ones indexed.
func (l AppLister) List(ctx context.Context, r client.Reader, list client.ObjectList, ns string, sel client.MatchingLabels) error {
	opts := []client.ListOption{client.InNamespace(ns), sel}
	app, named := sel[LabelApp]
	indexed := false
	if t, ok := list.(*metav1.PartialObjectMetadataList); ok {
		switch t.GetObjectKind().GroupVersionKind().Kind {
		case "PodList":
			indexed = true
		case "ConfigMapList":
			indexed = sel[LabelConfigMapType] == ConfigMapTypeHA
		}
	}
	if indexed && l.Indexed && named {
		opts = append(opts, client.MatchingFields{IndexApp: app})
	}
	return r.List(ctx, list, opts...)
}
