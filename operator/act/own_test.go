package act

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// TestDeleteOwnedReadsPastACacheThatHasNotSeenTheObject: a Deployment the operator just
// created, whose watch event its cache has not had yet, is deleted all the same when a reader
// past the cache is given, and left when it is another's.
func TestDeleteOwnedReadsPastACacheThatHasNotSeenTheObject(t *testing.T) {
	for name, tc := range map[string]struct {
		reader bool
		owner  string
		gone   bool
	}{
		"reader past the cache": {reader: true, owner: "uid-a", gone: true},
		"no reader":             {owner: "uid-a"},
		"another's":             {reader: true, owner: "uid-b"},
	} {
		t.Run(name, func(t *testing.T) {
			dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: TaskManagerName("a"), Namespace: "ns", OwnerReferences: []metav1.OwnerReference{
				{APIVersion: "flink.apache.org/v1beta1", Kind: "FlinkDeployment", Name: "a", UID: "uid-a", Controller: ptr.To(true)},
			}}}
			dep.OwnerReferences[0].UID = types.UID(tc.owner)
			server := fake.NewClientBuilder().WithObjects(dep).Build()
			// The cache: every read misses, every write reaches the server.
			cached := interceptor.NewClient(server, interceptor.Funcs{
				Get: func(_ context.Context, _ client.WithWatch, key client.ObjectKey, _ client.Object, _ ...client.GetOption) error {
					return apierrors.NewNotFound(schema.GroupResource{Group: "apps", Resource: "deployments"}, key.Name)
				},
			})
			var reader client.Reader
			if tc.reader {
				reader = server
			}
			target := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: dep.Name, Namespace: "ns"}}
			if err := deleteOwned(t.Context(), cached, reader, target, "uid-a"); err != nil {
				t.Fatal(err)
			}
			err := server.Get(t.Context(), client.ObjectKeyFromObject(dep), &appsv1.Deployment{})
			if gone := apierrors.IsNotFound(err); gone != tc.gone {
				t.Errorf("deleted = %v (get: %v), want %v", gone, err, tc.gone)
			}
		})
	}
}
