package harness

import (
	"context"
	"fmt"
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/flinkop/flinkop/operator/act"
	"github.com/flinkop/flinkop/operator/controller"
)

// CacheView wraps a fake client for the operator: reads return what the manager's cache
// keeps of each object (controller.SlimForCache), a typed read of a kind the cache holds as
// metadata only is refused as the cache refuses it (act.MetadataOnly), and creates and updates are refused where
// the API server's validation would refuse them and the fake client does not (see
// validated). Tests that give the reconciler this view run it on what it sees in production.
func CacheView(c client.WithWatch) client.WithWatch {
	return interceptor.NewClient(c, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if err := metadataOnly(obj); err != nil {
				return err
			}
			read := obj.DeepCopyObject().(client.Object)
			if err := c.Get(ctx, key, read, opts...); err != nil {
				return err
			}
			if !act.Cached(read) {
				// As the cache answers: NotFound, and obj left as it was.
				gvk, _ := apiutil.GVKForObject(obj, c.Scheme())
				gvr, _ := meta.UnsafeGuessKindToResource(gvk)
				return apierrors.NewNotFound(gvr.GroupResource(), key.Name)
			}
			controller.SlimForCache(read)
			reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(read).Elem())
			return nil
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			if err := metadataOnly(list); err != nil {
				return err
			}
			if err := c.List(ctx, list, opts...); err != nil {
				return err
			}
			return slimList(list)
		},
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			return validated(obj, func() error { return c.Create(ctx, obj, opts...) })
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			return validated(obj, func() error { return c.Update(ctx, obj, opts...) })
		},
	})
}

// metadataOnly refuses a typed read of a kind the manager's cache holds as metadata only, as
// the cache refuses a read no informer serves (controller.CacheOptions).
func metadataOnly(o runtime.Object) error {
	if act.MetadataOnly(o) {
		return fmt.Errorf("%T: %w (the cache holds this kind as metadata only)", o, &cache.ErrResourceNotCached{})
	}
	return nil
}

// slimList keeps of list the items the manager's cache holds (act.Cached), each cut
// down by controller.SlimForCache.
func slimList(list client.ObjectList) error {
	items, err := meta.ExtractList(list)
	if err != nil {
		return err
	}
	kept := items[:0]
	for _, o := range items {
		if obj, ok := o.(client.Object); ok {
			if !act.Cached(obj) {
				continue
			}
			controller.SlimForCache(obj)
		}
		kept = append(kept, o)
	}
	return meta.SetList(list, kept)
}

// validated runs a create or update unless the API server's validation would refuse obj
// where the fake client does not: a Deployment without a container (an update built from a
// cached Deployment, whose pod template the cache dropped, would send one).
func validated(obj client.Object, do func() error) error {
	if d, ok := obj.(*appsv1.Deployment); ok && len(d.Spec.Template.Spec.Containers) == 0 {
		return apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, d.Name,
			field.ErrorList{field.Required(field.NewPath("spec", "template", "spec", "containers"), "")})
	}
	return do()
}
