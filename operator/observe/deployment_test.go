package observe

import (
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
			got, err := o.deployment(t.Context(), d, act.JobManagerName("a"))
			if err != nil {
				t.Fatal(err)
			}
			if (got != nil) != tc.found {
				t.Errorf("JobManager Deployment observed: %v, want %v", got != nil, tc.found)
			}
		})
	}
}

// controlledByA makes an object controlled by the FlinkDeployment ns/a (UID uid-a) of these
// tests.
func controlledByA() []metav1.OwnerReference {
	return []metav1.OwnerReference{{APIVersion: "flink.apache.org/v1beta1", Kind: "FlinkDeployment", Name: "a", UID: "uid-a", Controller: ptr.To(true)}}
}
