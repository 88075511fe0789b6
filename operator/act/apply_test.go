package act

import (
	"context"
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// TestApplyWaitsForAnObjectBeingDeleted: an object the operator would write that is still
// being deleted, even with the very content wanted, is an error to retry, never taken for the
// wanted one (which would leave none once it is gone); the same object not being deleted is
// unchanged and costs no write.
func TestApplyWaitsForAnObjectBeingDeleted(t *testing.T) {
	own := []metav1.OwnerReference{{APIVersion: "flink.apache.org/v1beta1", Kind: "FlinkDeployment", Name: "a", UID: "uid-a", Controller: ptr.To(true)}}
	want := func() *appsv1.Deployment {
		d := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: TaskManagerName("a"), Namespace: "ns", OwnerReferences: own},
			Spec:       appsv1.DeploymentSpec{Replicas: ptr.To(int32(1))},
		}
		stampContentHash(d)
		return d
	}
	for name, tc := range map[string]struct {
		deleting bool
		want     error
	}{
		"being deleted": {deleting: true, want: ErrBeingDeleted},
		"current":       {},
	} {
		t.Run(name, func(t *testing.T) {
			existing := want()
			if tc.deleting {
				existing.DeletionTimestamp = ptr.To(metav1.Now())
				existing.Finalizers = []string{"example.com/hold"}
			}
			var writes int
			c := interceptor.NewClient(fake.NewClientBuilder().WithObjects(existing).Build(), interceptWrites(&writes))
			err := (&Executor{Client: c}).apply(t.Context(), want())
			if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Errorf("apply: %v, want %v", err, tc.want)
			}
			if writes != 0 {
				t.Errorf("%d writes, want none", writes)
			}
		})
	}
}

// interceptWrites counts the creates and updates made through a fake client.
func interceptWrites(n *int) interceptor.Funcs {
	return interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			*n++
			return c.Create(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			*n++
			return c.Update(ctx, obj, opts...)
		},
	}
}
