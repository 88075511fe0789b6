package observe

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestSessionSlots: a session cluster's demand is the parallelism of its session jobs that
// should run (job.parallelism, else the job's parallelism.default, else the cluster's), not
// of suspended or deleted ones, nor of another cluster's.
func TestSessionSlots(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := flinkv1beta1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	p := func(n int32) *int32 { return &n }
	job := func(name, cluster string, par *int32, conf map[string]string, mods ...func(*flinkv1beta1.FlinkSessionJob)) client.Object {
		j := &flinkv1beta1.FlinkSessionJob{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"},
			Spec: flinkv1beta1.FlinkSessionJobSpec{
				DeploymentName: cluster, FlinkConfiguration: flinkv1beta1.NewFlinkConfiguration(conf),
				Job: &flinkv1beta1.JobSpec{JarURI: "https://repo.example.com/a.jar", Parallelism: par},
			},
		}
		for _, m := range mods {
			m(j)
		}
		return j
	}
	suspended := func(j *flinkv1beta1.FlinkSessionJob) { j.Spec.Job.State = flinkv1beta1.JobStateSuspended }
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(
		job("a", "s", p(4), nil),
		job("b", "s", nil, map[string]string{"parallelism.default": "3"}),
		job("c", "s", nil, nil), // the cluster's parallelism.default: 2
		job("d", "s", p(8), nil, suspended),
		job("e", "other", p(16), nil),
	).Build()
	d := &flinkv1beta1.FlinkDeployment{
		ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns"},
		Spec:       flinkv1beta1.FlinkDeploymentSpec{FlinkConfiguration: flinkv1beta1.NewFlinkConfiguration(map[string]string{"parallelism.default": "2"})},
	}
	got, err := (&Observer{Client: c}).sessionSlots(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	if got != 4+3+2 {
		t.Errorf("session slots %d, want 9", got)
	}
}
