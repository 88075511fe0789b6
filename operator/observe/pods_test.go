package observe

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

// TestPodsAreReadOnlyWhileTheJobManagerIsUnavailable: the JobManager's pods are listed only
// while its Deployment is not available or one of its JobManagers is not ready, and then say
// why; with every JobManager ready no pod is read.
func TestPodsAreReadOnlyWhileTheJobManagerIsUnavailable(t *testing.T) {
	labels := map[string]string(act.JobManagerPods("a"))
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "a-jm-0", Namespace: "ns", Labels: labels},
		Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{
			Name: act.MainContainer, RestartCount: 3, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off"}},
		}}},
	}
	crashLoop := &decide.PodError{Reason: "CrashLoopBackOff", Message: "pod a-jm-0 container " + act.MainContainer + ": back-off"}
	for name, tc := range map[string]struct {
		available bool
		replicas  int32 // JobManagers (1 unless set)
		lists     int   // of pod metadata, through the cache
		gets      int   // of whole pods, past it
		problem   *decide.PodError
	}{
		"unavailable: pods say why":              {lists: 1, gets: 1, problem: crashLoop},
		"available: no pod read":                 {available: true},
		"a standby not ready: pods say why (HA)": {available: true, replicas: 2, lists: 1, gets: 1, problem: crashLoop},
	} {
		t.Run(name, func(t *testing.T) {
			jm := &appsv1.Deployment{
				ObjectMeta: metav1.ObjectMeta{Name: act.JobManagerName("a"), Namespace: "ns", Generation: 1, OwnerReferences: controlledByA(), Labels: labels},
				Spec:       appsv1.DeploymentSpec{Replicas: ptr.To(int32(1))},
				Status:     appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 1, UpdatedReplicas: 1},
			}
			if tc.replicas > 1 {
				jm.Spec.Replicas, jm.Status.Replicas, jm.Status.UpdatedReplicas = ptr.To(tc.replicas), tc.replicas, tc.replicas
			}
			if tc.available {
				jm.Status.ReadyReplicas, jm.Status.AvailableReplicas = 1, 1
			}
			lists, gets := 0, 0
			byApp := func(o client.Object) []string { return []string{o.GetLabels()[act.LabelApp]} }
			c := fake.NewClientBuilder().WithObjects(jm, pod).WithIndex(&corev1.ConfigMap{}, act.IndexApp, byApp).WithIndex(act.PodMetadata(), act.IndexApp, byApp).WithInterceptorFuncs(interceptor.Funcs{
				List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
					if _, ok := list.(*corev1.PodList); ok {
						t.Errorf("whole pods listed through the cache")
					}
					if m, ok := list.(*metav1.PartialObjectMetadataList); ok && m.Kind == "PodList" {
						lists++
					}
					return c.List(ctx, list, opts...)
				},
			}).Build()
			reader := interceptor.NewClient(fake.NewClientBuilder().WithObjects(pod).Build(), interceptor.Funcs{
				Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
					if _, ok := obj.(*corev1.Pod); ok {
						gets++
					}
					return c.Get(ctx, key, obj, opts...)
				},
			})
			o := &Observer{Client: c, Reader: reader, Lister: act.AppLister{Indexed: true}, Flink: func(*flinkv1beta1.FlinkDeployment) FlinkAPI { return &stalling{} }, RESTBudget: time.Millisecond}
			d := &flinkv1beta1.FlinkDeployment{
				ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", UID: "uid-a"},
				Spec:       flinkv1beta1.FlinkDeploymentSpec{Mode: flinkv1beta1.DeploymentModeStandalone},
			} // no session jobs to count
			obs, err := o.Observe(t.Context(), d)
			if err != nil {
				t.Fatal(err)
			}
			if lists != tc.lists || gets != tc.gets {
				t.Errorf("%d pod metadata lists and %d pod reads past the cache, want %d and %d", lists, gets, tc.lists, tc.gets)
			}
			if diff := cmp.Diff(tc.problem, obs.PodError); diff != "" {
				t.Errorf("pod problem (-want +got):\n%s", diff)
			}
		})
	}
}
