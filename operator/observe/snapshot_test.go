package observe

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestRestoresFrom: which jobs keep a savepoint from disposal, and why.
func TestRestoresFrom(t *testing.T) {
	const sp = "s3://b/sp-1"
	last := &flinkv1beta1.SavepointInfo{LastSavepoint: &flinkv1beta1.Savepoint{Location: sp}}
	initial := &flinkv1beta1.JobSpec{InitialSavepointPath: sp}
	for name, tc := range map[string]struct {
		job                  *flinkv1beta1.JobSpec
		js                   flinkv1beta1.JobStatus
		generation, observed int64
		want                 string
	}{
		"upgrade savepoint":                {js: flinkv1beta1.JobStatus{JobID: "j", UpgradeSavepointPath: sp}, generation: 1, observed: 1, want: "its upgrade or last savepoint"},
		"last savepoint":                   {js: flinkv1beta1.JobStatus{JobID: "j", SavepointInfo: last}, generation: 1, observed: 1, want: "its upgrade or last savepoint"},
		"initial savepoint, not started":   {job: initial, generation: 1, want: "its initial savepoint, not yet started from"},
		"initial savepoint, spec unseen":   {job: initial, js: flinkv1beta1.JobStatus{JobID: "j"}, generation: 2, observed: 1, want: "its initial savepoint, not yet started from"},
		"initial savepoint, started since": {job: initial, js: flinkv1beta1.JobStatus{JobID: "j"}, generation: 1, observed: 1},
		"another savepoint":                {js: flinkv1beta1.JobStatus{JobID: "j", UpgradeSavepointPath: "s3://b/sp-2"}, generation: 1, observed: 1},
	} {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, restoresFrom(tc.job, &tc.js, tc.generation, tc.observed, sp)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestRestoredBy: a savepoint any job of any namespace would restore from is kept, whatever
// its spelling; a job of another namespace is not named to the snapshot's. With the cache's
// index the jobs are found through it, never by reading every job.
func TestRestoredBy(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := flinkv1beta1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	deployment := func(ns, name string, mod func(*flinkv1beta1.FlinkDeployment)) client.Object {
		d := &flinkv1beta1.FlinkDeployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Generation: 1}}
		d.Spec.Job = &flinkv1beta1.JobSpec{JarURI: "local:///opt/flink/job.jar"}
		d.Status.JobStatus.JobID, d.Status.ObservedGeneration = "j-"+name, 1
		mod(d)
		return d
	}
	sessionJob := func(ns, name, last string) client.Object {
		j := &flinkv1beta1.FlinkSessionJob{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		j.Status.JobStatus = flinkv1beta1.JobStatus{JobID: "j", SavepointInfo: &flinkv1beta1.SavepointInfo{LastSavepoint: &flinkv1beta1.Savepoint{Location: last}}}
		return j
	}
	objs := []client.Object{
		deployment("b", "other", func(d *flinkv1beta1.FlinkDeployment) {
			d.Status.JobStatus.UpgradeSavepointPath = "s3://b/ns-b/sp-1"
			d.Status.JobStatus.SavepointInfo = &flinkv1beta1.SavepointInfo{LastSavepoint: &flinkv1beta1.Savepoint{Location: "s3://b/ns-a/sp-3"}}
		}),
		deployment("a", "mine", func(d *flinkv1beta1.FlinkDeployment) {
			d.Spec.Job.InitialSavepointPath, d.Status.JobStatus.JobID = "s3://b/ns-a/sp-3", ""
		}),
		deployment("a", "started", func(d *flinkv1beta1.FlinkDeployment) { d.Spec.Job.InitialSavepointPath = "s3://b/ns-a/sp-4" }),
		sessionJob("c", "theirs", "s3://b/ns-c/sp-2"),
	}
	for name, tc := range map[string]struct {
		// path is the savepoint of a snapshot of namespace a.
		path string
		// want is who would restore from it.
		want string
	}{
		"another namespace's upgrade savepoint":         {path: "s3://b/ns-b/sp-1", want: "a FlinkDeployment of another namespace (its upgrade or last savepoint)"},
		"another namespace's session job, spelled //":   {path: "s3://b//ns-c/sp-2/", want: "a FlinkSessionJob of another namespace (its upgrade or last savepoint)"},
		"its own namespace's job is named first":        {path: "s3://b/ns-a/./sp-3", want: "FlinkDeployment mine (its initial savepoint, not yet started from)"},
		"an initial savepoint already started from":     {path: "s3://b/ns-a/sp-4"},
		"no job restores from it":                       {path: "s3://b/ns-a/sp-9"},
		"a path without a canonical form matches as is": {path: "s3://b/../x"},
	} {
		for _, indexed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s (indexed %v)", name, indexed), func(t *testing.T) {
				b := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...)
				if indexed {
					b = b.WithIndex(&flinkv1beta1.FlinkDeployment{}, act.IndexRestorePath, act.RestorePaths).
						WithIndex(&flinkv1beta1.FlinkSessionJob{}, act.IndexRestorePath, act.RestorePaths)
				}
				c := interceptor.NewClient(b.Build(), interceptor.Funcs{
					List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
						if o := (&client.ListOptions{}).ApplyOptions(opts); indexed && (o.FieldSelector == nil || o.FieldSelector.Empty()) {
							t.Errorf("listed every %T, not through the index", list)
						}
						return c.List(ctx, list, opts...)
					},
				})
				o := &SnapshotObserver{Client: c, Restorers: act.RestoreLister{Indexed: indexed}}
				got, err := o.restoredBy(t.Context(), "a", tc.path)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			})
		}
	}
}
