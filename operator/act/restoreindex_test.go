package act

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/client"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// kindsIndexer keeps the kinds and fields an index is registered on.
type kindsIndexer []string

func (k *kindsIndexer) IndexField(_ context.Context, obj client.Object, field string, _ client.IndexerFunc) error {
	*k = append(*k, field+" on "+restoreKind(obj))
	return nil
}

func restoreKind(obj client.Object) string {
	switch obj.(type) {
	case *flinkv1beta1.FlinkDeployment:
		return "FlinkDeployment"
	case *flinkv1beta1.FlinkSessionJob:
		return "FlinkSessionJob"
	}
	return "?"
}

// TestRestorePaths: a job is indexed under the canonical form of every savepoint it may
// restore from, each once; another object under none.
func TestRestorePaths(t *testing.T) {
	last := func(p string) *flinkv1beta1.SavepointInfo {
		return &flinkv1beta1.SavepointInfo{LastSavepoint: &flinkv1beta1.Savepoint{Location: p}}
	}
	deployment := func(initial string, js flinkv1beta1.JobStatus) *flinkv1beta1.FlinkDeployment {
		d := &flinkv1beta1.FlinkDeployment{}
		if initial != "" {
			d.Spec.Job = &flinkv1beta1.JobSpec{InitialSavepointPath: initial}
		}
		d.Status.JobStatus = js
		return d
	}
	for name, tc := range map[string]struct {
		// obj is the indexed object.
		obj client.Object
		// want are its keys.
		want []string
	}{
		"a deployment's upgrade, last and initial savepoints, canonical": {
			obj:  deployment("s3://b/init/", flinkv1beta1.JobStatus{UpgradeSavepointPath: "s3://b//up", SavepointInfo: last("s3://b/./last")}),
			want: []string{"s3://b/up", "s3://b/last", "s3://b/init"},
		},
		"one path spelled twice is one key": {
			obj:  deployment("", flinkv1beta1.JobStatus{UpgradeSavepointPath: "s3://b/sp", SavepointInfo: last("s3://b//sp/")}),
			want: []string{"s3://b/sp"},
		},
		"a path without a canonical form as written": {
			obj:  deployment("", flinkv1beta1.JobStatus{UpgradeSavepointPath: "s3://b/../x"}),
			want: []string{"s3://b/../x"},
		},
		"a session job's last savepoint": {
			obj: func() client.Object {
				j := &flinkv1beta1.FlinkSessionJob{}
				j.Status.JobStatus.SavepointInfo = last("gs://c/sp-1")
				return j
			}(),
			want: []string{"gs://c/sp-1"},
		},
		"a job with no savepoint": {obj: &flinkv1beta1.FlinkDeployment{}},
		"another kind":            {obj: &flinkv1beta1.FlinkStateSnapshot{}},
	} {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, RestorePaths(tc.obj)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	var idx kindsIndexer
	if err := IndexJobsByRestorePath(t.Context(), &idx); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(kindsIndexer{IndexRestorePath + " on FlinkDeployment", IndexRestorePath + " on FlinkSessionJob"}, idx); diff != "" {
		t.Errorf("registered (-want +got):\n%s", diff)
	}
}
