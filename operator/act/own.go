package act

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/flink"
)

// ErrNotOwned is returned when an object the operator would write already exists and is not
// controlled by the resource: the operator never adopts, updates or deletes another's object
// (a FlinkDeployment named like an existing Deployment, or two FlinkDeployments whose
// rendered names meet, such as "a"'s Service a-rest and FlinkDeployment "a-rest").
var ErrNotOwned = errors.New("exists and is not controlled by this resource")

// ErrBeingDeleted is returned when an object the operator would write is still being deleted:
// the write is retried once it is gone, then creates it anew.
var ErrBeingDeleted = errors.New("waiting for the old object to be gone")

// controlledBy reports whether obj's controller is the object with uid.
func controlledBy(obj client.Object, uid types.UID) bool {
	ref := metav1.GetControllerOf(obj)
	return ref != nil && ref.UID == uid
}

// checkControlled returns ErrNotOwned unless existing's controller is the object with uid.
func checkControlled(existing client.Object, uid types.UID) error {
	if controlledBy(existing, uid) {
		return nil
	}
	ref := metav1.GetControllerOf(existing)
	owner := "no controller"
	if ref != nil {
		owner = "controlled by " + ref.Kind + " " + ref.Name
	}
	return fmt.Errorf("%s %w (%s): rename the resource or remove the object", describe(existing), ErrNotOwned, owner)
}

// controllerUID is the uid of obj's controller (the resource it was rendered for).
func controllerUID(obj client.Object) types.UID {
	if ref := metav1.GetControllerOf(obj); ref != nil {
		return ref.UID
	}
	return ""
}

// deleteOwned deletes obj (only its key is read) if it exists and is controlled by uid; an
// object that is gone or belongs to another is left alone. The delete is conditional on the
// uid read, so an object re-created in between is not deleted either. An object c's cache
// does not hold is read again past it (r; nil: not): a create whose watch event has not
// arrived yet is no absence, or a deletion right after a deploy would leave it behind.
func deleteOwned(ctx context.Context, c client.Client, r client.Reader, obj client.Object, uid types.UID, opts ...client.DeleteOption) error {
	key := client.ObjectKeyFromObject(obj)
	existing := asCached(obj) // a kind the cache holds as metadata is read as metadata
	err := c.Get(ctx, key, existing)
	if apierrors.IsNotFound(err) && r != nil {
		err = r.Get(ctx, key, existing)
	}
	if err != nil {
		return wrap("get "+describe(obj), client.IgnoreNotFound(err))
	}
	if !controlledBy(existing, uid) {
		return nil // another's: left alone
	}
	objUID := existing.GetUID()
	opts = append(opts, client.Preconditions{UID: &objUID})
	return wrap("delete "+describe(obj), client.IgnoreNotFound(c.Delete(ctx, obj, opts...)))
}

// IsPermanent reports whether an action failed for a reason a retry alone is unlikely to fix
// and the user must see (an object owned by another; a jar that cannot be fetched: refused,
// malformed, too large, missing or unreachable; an option value Flink would refuse): the
// reconciler then puts the failure into status.error as well as a Warning, while retrying
// with backoff.
func IsPermanent(err error) bool {
	return errors.Is(err, ErrNotOwned) || errors.Is(err, flink.ErrJarFetch) || errors.Is(err, ErrRender)
}

// ErrRender is a spec the renderer cannot render: an option value Flink would refuse (Render).
var ErrRender = errors.New("cannot render the cluster")
