package harness

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/flinkop/flinkop/fakeflink"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

// child is a blue/green child as the invariants see it: ready, not ready, or being deleted.
func child(c flinkv1beta1.BlueGreenColor, uid, job string, ready, deleting bool) *flinkv1beta1.FlinkDeployment {
	d := &flinkv1beta1.FlinkDeployment{ObjectMeta: metav1.ObjectMeta{Name: c.ChildName("bg"), UID: types.UID(uid), Generation: 1}}
	d.Spec.Job = &flinkv1beta1.JobSpec{}
	d.Status.JobStatus.JobID = job
	if ready {
		rs := decide.ReconciledSpec{}
		rs.Metadata.Metadata.Generation = 1
		d.Status.ObservedGeneration, d.Status.LifecycleState = 1, flinkv1beta1.LifecycleStable
		d.Status.ReconciliationStatus.LastStableSpec = rs.Encode()
		d.Status.JobStatus.State = flinkv1beta1.JobStatusRunning
	}
	if deleting {
		d.DeletionTimestamp = &metav1.Time{Time: Start}
	}
	return d
}

// TestBlueGreenInvariantsFire shows each of B1–B5 firing on the world state of a broken
// operator, after a first view of a healthy blue.
func TestBlueGreenInvariantsFire(t *testing.T) {
	store := map[string]fakeflink.Snapshot{
		"old": {Path: "old", Kind: fakeflink.KindSavepoint, JobID: "job-blue", Time: Start.Add(-time.Minute)},
		"new": {Path: "new", Kind: fakeflink.KindSavepoint, JobID: "job-blue", Time: Start.Add(time.Minute)},
		"cp":  {Path: "cp", Kind: fakeflink.KindCheckpoint, JobID: "job-blue", Time: Start.Add(time.Minute)},
	}
	lookup := func(p string) (fakeflink.Snapshot, bool) { s, ok := store[p]; return s, ok }
	view := func(state flinkv1beta1.BlueGreenState, gen int64, jobs int, children ...*flinkv1beta1.FlinkDeployment) BlueGreenView {
		v := BlueGreenView{
			Exists: true, State: state, Generation: gen, RunningJobs: jobs, Savepoint: lookup, Now: Start,
			Children: map[flinkv1beta1.BlueGreenColor]*flinkv1beta1.FlinkDeployment{},
		}
		for _, d := range children {
			c := flinkv1beta1.Blue
			if strings.HasSuffix(d.Name, "-green") {
				c = flinkv1beta1.Green
			}
			v.Children[c] = d
		}
		return v
	}
	green := func(path string, ready, deleting bool) *flinkv1beta1.FlinkDeployment {
		d := child(flinkv1beta1.Green, "g", "job-green", ready, deleting)
		d.Spec.Job.InitialSavepointPath = path
		return d
	}
	blue := child(flinkv1beta1.Blue, "b", "job-blue", true, false)
	cases := map[string]struct {
		next BlueGreenView
		want string // "" : no violation
	}{
		"a healthy switch":              {view(flinkv1beta1.BlueGreenTransitioningToGreen, 2, 2, blue, green("new", false, false)), ""},
		"three jobs run":                {view(flinkv1beta1.BlueGreenTransitioningToGreen, 2, 3, blue, green("new", false, false)), "B1"},
		"no child left":                 {view(flinkv1beta1.BlueGreenActiveBlue, 2, 0, child(flinkv1beta1.Blue, "b", "job-blue", true, true)), "B2"},
		"green from an older savepoint": {view(flinkv1beta1.BlueGreenTransitioningToGreen, 2, 2, blue, green("old", false, false)), "B3"},
		"green from a checkpoint":       {view(flinkv1beta1.BlueGreenTransitioningToGreen, 2, 2, blue, green("cp", false, false)), "B3"},
		"blue deleted, green not ready": {view(flinkv1beta1.BlueGreenActiveGreen, 2, 1, child(flinkv1beta1.Blue, "b", "job-blue", true, true), green("new", false, false)), "B4"},
		"blue deleted once green ready": {view(flinkv1beta1.BlueGreenActiveGreen, 2, 1, child(flinkv1beta1.Blue, "b", "job-blue", true, true), green("new", true, false)), ""},
		"a failed green is deleted":     {view(flinkv1beta1.BlueGreenActiveBlue, 2, 1, blue, green("new", false, true)), ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			st := &blueGreenState{children: map[flinkv1beta1.BlueGreenColor]childSeen{}}
			if v := st.Check("bg", view(flinkv1beta1.BlueGreenActiveBlue, 1, 1, blue)); len(v) > 0 {
				t.Fatalf("healthy blue: %v", v)
			}
			if strings.Contains(name, "deleted") {
				// Green existed, not ready, while blue served.
				if v := st.Check("bg", view(flinkv1beta1.BlueGreenTransitioningToGreen, 2, 2, blue, green("new", false, false))); len(v) > 0 {
					t.Fatalf("switch: %v", v)
				}
			}
			got := strings.Join(st.Check("bg", tc.next), "\n")
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("want a violation of %q, got %q", tc.want, got)
			}
		})
	}
}
