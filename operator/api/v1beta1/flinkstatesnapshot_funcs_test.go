package v1beta1

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestValidateSnapshot: the rules a snapshot must keep beyond its schema, each named by the
// field path it fails on.
func TestValidateSnapshot(t *testing.T) {
	ref := &JobReference{Kind: JobKindDeployment, Name: "example-deployment"}
	for name, tc := range map[string]struct {
		spec FlinkStateSnapshotSpec
		want []string // field paths of the errors
	}{
		"savepoint of a deployment":        {spec: FlinkStateSnapshotSpec{JobReference: ref, Savepoint: &SavepointSpec{}}},
		"checkpoint of a session job":      {spec: FlinkStateSnapshotSpec{JobReference: &JobReference{Kind: JobKindSessionJob, Name: "j"}, Checkpoint: &CheckpointSpec{}}},
		"existing savepoint, no job":       {spec: FlinkStateSnapshotSpec{Savepoint: &SavepointSpec{AlreadyExists: true, Path: "s3://b/sp-1"}}},
		"neither savepoint nor checkpoint": {spec: FlinkStateSnapshotSpec{JobReference: ref}, want: []string{"spec"}},
		"both":                             {spec: FlinkStateSnapshotSpec{JobReference: ref, Savepoint: &SavepointSpec{}, Checkpoint: &CheckpointSpec{}}, want: []string{"spec"}},
		"no job reference":                 {spec: FlinkStateSnapshotSpec{Checkpoint: &CheckpointSpec{}}, want: []string{"spec.jobReference"}},
		"job reference without kind":       {spec: FlinkStateSnapshotSpec{JobReference: &JobReference{Name: "x"}, Checkpoint: &CheckpointSpec{}}, want: []string{"spec.jobReference.kind"}},
		"job reference name not a name":    {spec: FlinkStateSnapshotSpec{JobReference: &JobReference{Kind: JobKindDeployment, Name: "../x"}, Checkpoint: &CheckpointSpec{}}, want: []string{"spec.jobReference.name"}},
		"existing savepoint without path":  {spec: FlinkStateSnapshotSpec{Savepoint: &SavepointSpec{AlreadyExists: true}}, want: []string{"spec.savepoint.path"}},
		"path with credentials":            {spec: FlinkStateSnapshotSpec{JobReference: ref, Savepoint: &SavepointSpec{Path: "s3://key:secret@b/sp"}}, want: []string{"spec.savepoint.path"}},
		"path with a newline":              {spec: FlinkStateSnapshotSpec{JobReference: ref, Savepoint: &SavepointSpec{Path: "/sp\nx"}}, want: []string{"spec.savepoint.path"}},
		"path too long":                    {spec: FlinkStateSnapshotSpec{JobReference: ref, Savepoint: &SavepointSpec{Path: "/" + strings.Repeat("a", MaxSnapshotPathLength)}}, want: []string{"spec.savepoint.path"}},
		"format UNKNOWN for a new one":     {spec: FlinkStateSnapshotSpec{JobReference: ref, Savepoint: &SavepointSpec{FormatType: "UNKNOWN"}}, want: []string{"spec.savepoint.formatType"}},
		"backoff below -1":                 {spec: FlinkStateSnapshotSpec{JobReference: ref, Checkpoint: &CheckpointSpec{}, BackoffLimit: ptr(-2)}, want: []string{"spec.backoffLimit"}},
	} {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, e := range (&FlinkStateSnapshot{Spec: tc.spec}).Validate() {
				got = append(got, e.Field)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("error fields (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSnapshotDefaults: Apache's defaults where a field is left out.
func TestSnapshotDefaults(t *testing.T) {
	spec := FlinkStateSnapshotSpec{Savepoint: &SavepointSpec{}}
	got := []any{spec.EffectiveBackoffLimit(), spec.Savepoint.EffectiveDisposeOnDelete(), spec.Savepoint.EffectiveFormatType()}
	if diff := cmp.Diff([]any{-1, true, SavepointFormatType("CANONICAL")}, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

// TestFlinkVersionAtLeast: release order across majors; other forms are never recent enough.
func TestFlinkVersionAtLeast(t *testing.T) {
	got := map[FlinkVersion]bool{}
	for _, v := range []FlinkVersion{"v1_16", "v1_17", "v1_20", "v2_0", "", "v1", "vx_17"} {
		got[v] = v.AtLeast(1, 17)
	}
	want := map[FlinkVersion]bool{"v1_16": false, "v1_17": true, "v1_20": true, "v2_0": true, "": false, "v1": false, "vx_17": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("AtLeast(1, 17) (-want +got):\n%s", diff)
	}
}
