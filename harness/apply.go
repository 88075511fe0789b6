package harness

import (
	"context"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// applySpec creates obj (a Flink resource, in the world's namespace, with a UID drawn from the
// world's seed) or replaces the spec of the existing one, as kubectl apply would, and returns
// the generation it has now: the API counts it (the fake backend as the API server does, see
// countGeneration), growing only when the spec changes.
func (w *World) applySpec(obj client.Object) (int64, error) {
	ctx := context.Background()
	obj.SetNamespace(w.Namespace)
	cur := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(client.Object)
	err := w.Client.Get(ctx, client.ObjectKeyFromObject(obj), cur)
	switch {
	case apierrors.IsNotFound(err):
		obj.SetUID(types.UID(fmt.Sprintf("uid-%s-%d", obj.GetName(), w.Rand.Int63())))
		err = w.Client.Create(ctx, obj)
		cur = obj
	case err == nil && !equality.Semantic.DeepEqual(specOf(cur), specOf(obj)):
		reflect.ValueOf(cur).Elem().FieldByName("Spec").Set(reflect.ValueOf(obj).Elem().FieldByName("Spec"))
		err = w.Client.Update(ctx, cur)
	}
	return cur.GetGeneration(), err
}
