package act

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// TestApplyService: the cache holds Services as metadata; an unchanged one costs no read past
// it and no write, a changed one is read whole and updated with its cluster IP kept, and one
// another resource controls is refused.
func TestApplyService(t *testing.T) {
	own := []metav1.OwnerReference{{APIVersion: "flink.apache.org/v1beta1", Kind: "FlinkDeployment", Name: "a", UID: "uid-a", Controller: ptr.To(true)}}
	rendered := func(port int32) *corev1.Service {
		s := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "a-rest", Namespace: "ns", Labels: map[string]string{LabelApp: "a", LabelManagedBy: ManagedBy}, OwnerReferences: slices.Clone(own)},
			Spec:       corev1.ServiceSpec{Selector: map[string]string{LabelApp: "a"}, Ports: []corev1.ServicePort{{Name: "rest", Port: port}}},
		}
		return s
	}
	stored := func(port int32, edit func(*corev1.Service)) *corev1.Service {
		s := rendered(port)
		stampContentHash(s)
		s.Spec.ClusterIP, s.Spec.ClusterIPs = "10.0.0.7", []string{"10.0.0.7"}
		if edit != nil {
			edit(s)
		}
		return s
	}
	type outcome struct {
		PastCache, Writes int
		Port              int32
		ClusterIP         string
		Hashed, Refused   bool
	}
	for name, tc := range map[string]struct {
		existing *corev1.Service
		want     outcome
	}{
		"new":                 {want: outcome{Writes: 1, Port: 8081, Hashed: true}},
		"unchanged":           {existing: stored(8081, nil), want: outcome{Port: 8081, ClusterIP: "10.0.0.7", Hashed: true}},
		"rendered spec moved": {existing: stored(9091, nil), want: outcome{PastCache: 1, Writes: 1, Port: 8081, ClusterIP: "10.0.0.7", Hashed: true}},
		"no hash yet (an older Flinkop's)": {
			existing: stored(8081, func(s *corev1.Service) { s.Annotations = nil }),
			want:     outcome{PastCache: 1, Writes: 1, Port: 8081, ClusterIP: "10.0.0.7", Hashed: true},
		},
		"another's": {
			existing: stored(8081, func(s *corev1.Service) { s.OwnerReferences[0].UID = "uid-b" }),
			want:     outcome{Port: 8081, ClusterIP: "10.0.0.7", Hashed: true, Refused: true},
		},
	} {
		t.Run(name, func(t *testing.T) {
			var objs []client.Object
			if tc.existing != nil {
				objs = append(objs, tc.existing)
			}
			server := fake.NewClientBuilder().WithObjects(objs...).Build()
			var got outcome
			count := interceptWrites(&got.Writes)
			count.Get = func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
				if _, typed := obj.(*corev1.Service); typed {
					got.PastCache++
				}
				return c.Get(ctx, key, obj, opts...)
			}
			e := &Executor{Client: interceptor.NewClient(server, count), Reader: interceptor.NewClient(server, count)}
			err := e.apply(t.Context(), rendered(8081))
			got.Refused = errors.Is(err, ErrNotOwned)
			if err != nil && !got.Refused {
				t.Fatal(err)
			}
			var after corev1.Service
			if err := server.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: "a-rest"}, &after); err != nil {
				t.Fatal(err)
			}
			got.Port, got.ClusterIP, got.Hashed = after.Spec.Ports[0].Port, after.Spec.ClusterIP, after.Annotations[AnnotationContentHash] != ""
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
