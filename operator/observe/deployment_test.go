package observe

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestDeploymentMissingFromTheCacheIsConfirmed: a JobManager Deployment the cache has not seen
// yet, right after the status recorded the deploy, is read past the cache instead of counted
// as missing (the false "missing and cannot be recovered" a 1,000-deployment fleet showed);
// before the deploy, and without a reader (the broken variant), the cache's answer stands.
func TestDeploymentMissingFromTheCacheIsConfirmed(t *testing.T) {
	d := &flinkv1beta1.FlinkDeployment{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", UID: "uid-a"}}
	jm := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: act.JobManagerName("a"), Namespace: "ns", OwnerReferences: controlledByA()}}
	cache := fake.NewClientBuilder().Build()
	server := fake.NewClientBuilder().WithObjects(jm).Build()
	for name, tc := range map[string]struct {
		status flinkv1beta1.JobManagerDeploymentStatus
		reader client.Reader
		found  bool
	}{
		"deployed, cache behind":         {status: flinkv1beta1.JobManagerDeploying, reader: server, found: true},
		"ready, cache behind":            {status: flinkv1beta1.JobManagerReady, reader: server, found: true},
		"not deployed yet":               {status: flinkv1beta1.JobManagerMissing, reader: server},
		"first reconcile":                {status: "", reader: server},
		"no reader (the broken variant)": {status: flinkv1beta1.JobManagerDeploying},
	} {
		t.Run(name, func(t *testing.T) {
			o := &Observer{Client: cache, Reader: tc.reader}
			d := d.DeepCopy()
			d.Status.JobManagerDeploymentStatus = tc.status
			got, err := o.deployment(t.Context(), d, act.JobManagerName("a"), expectsCluster(d))
			if err != nil {
				t.Fatal(err)
			}
			if (got != nil) != tc.found {
				t.Errorf("JobManager Deployment observed: %v, want %v", got != nil, tc.found)
			}
		})
	}
}

// countingReader counts the reads past the cache, by object name.
type countingReader struct {
	client.Reader
	gets map[string]int
}

func (r *countingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	r.gets[key.Name]++
	return r.Reader.Get(ctx, key, obj, opts...)
}

// TestNativeClusterHasNoTaskManagerDeploymentToConfirm: a deployed native cluster has no
// TaskManager Deployment, and its absence is not read again past the cache on every look (at
// 10,000 deployments, one GET each a reconcile); a standalone cluster's is.
func TestNativeClusterHasNoTaskManagerDeploymentToConfirm(t *testing.T) {
	for mode, want := range map[flinkv1beta1.KubernetesDeploymentMode]int{flinkv1beta1.DeploymentModeNative: 0, flinkv1beta1.DeploymentModeStandalone: 1} {
		t.Run(string(mode), func(t *testing.T) {
			d := &flinkv1beta1.FlinkDeployment{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", UID: "uid-a"}}
			d.Spec.Mode = mode
			d.Status.JobManagerDeploymentStatus = flinkv1beta1.JobManagerDeploying
			r := &countingReader{Reader: fake.NewClientBuilder().Build(), gets: map[string]int{}}
			o := &Observer{Client: fake.NewClientBuilder().Build(), Reader: r}
			if _, err := o.Observe(t.Context(), d); err != nil {
				t.Fatal(err)
			}
			if got := r.gets[act.TaskManagerName("a")]; got != want {
				t.Errorf("%d reads of the TaskManager Deployment past the cache, want %d", got, want)
			}
		})
	}
}

// controlledByA makes an object controlled by the FlinkDeployment ns/a (UID uid-a) of these
// tests.
func controlledByA() []metav1.OwnerReference {
	return []metav1.OwnerReference{{APIVersion: "flink.apache.org/v1beta1", Kind: "FlinkDeployment", Name: "a", UID: "uid-a", Controller: ptr.To(true)}}
}
