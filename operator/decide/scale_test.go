package decide

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

func TestScaleInPlace(t *testing.T) {
	// standalone is a deployed standalone job with 2 TaskManagers of 2 slots (parallelism 2),
	// on the adaptive scheduler when adaptive is set; change then edits its spec (generation 2).
	standalone := func(adaptive bool, change func(*flinkv1beta1.FlinkDeploymentSpec)) *flinkv1beta1.FlinkDeployment {
		set := func(s *flinkv1beta1.FlinkDeploymentSpec) {
			s.Mode = flinkv1beta1.DeploymentModeStandalone
			s.FlinkConfiguration.Set("taskmanager.numberOfTaskSlots", "2")
			r := int32(2)
			s.TaskManager = &flinkv1beta1.TaskManagerSpec{Replicas: &r}
			if adaptive {
				s.FlinkConfiguration.Set("jobmanager.scheduler", "adaptive")
			}
		}
		d := deployed(sp)
		set(&d.Spec)
		r := newReconciledSpec(d.Spec, 1, false, RestoreSavepoint)
		d.Status.ReconciliationStatus.LastReconciledSpec, d.Status.ReconciliationStatus.LastStableSpec = r.Encode(), r.Encode()
		change(&d.Spec)
		d.Generation = 2
		return d
	}
	replicas := func(n int32) func(*flinkv1beta1.FlinkDeploymentSpec) {
		return func(s *flinkv1beta1.FlinkDeploymentSpec) { s.TaskManager.Replicas = &n }
	}
	par := func(n int32) func(*flinkv1beta1.FlinkDeploymentSpec) {
		return func(s *flinkv1beta1.FlinkDeploymentSpec) { s.Job.Parallelism = &n }
	}
	both := func(fs ...func(*flinkv1beta1.FlinkDeploymentSpec)) func(*flinkv1beta1.FlinkDeploymentSpec) {
		return func(s *flinkv1beta1.FlinkDeploymentSpec) {
			for _, f := range fs {
				f(s)
			}
		}
	}
	cases := map[string]struct {
		d               *flinkv1beta1.FlinkDeployment
		o               Observation
		wantInPlace     bool
		wantParallelism int32
		wantOverrides   map[string]int32
		// noInPlace sets kubernetes.operator.job.upgrade.inplace-scaling.enabled false.
		noInPlace bool
	}{
		"more TaskManagers: resized in place": {
			d: standalone(false, replicas(3)), o: cluster(1, "RUNNING"), wantInPlace: true,
		},
		"parallelism with the adaptive scheduler: rescaled in place": {
			d: standalone(true, both(replicas(3), par(6))), o: cluster(1, "RUNNING"), wantInPlace: true, wantParallelism: 6,
		},
		"vertex parallelism overrides with the adaptive scheduler: rescaled in place": {
			d: standalone(true, func(s *flinkv1beta1.FlinkDeploymentSpec) {
				s.FlinkConfiguration.Set(KeyParallelismOverrides, "vertex-a:1, vertex-b:2")
			}),
			o: cluster(1, "RUNNING"), wantInPlace: true, wantParallelism: 2, wantOverrides: map[string]int32{"vertex-a": 1, "vertex-b": 2},
		},
		"parallelism with in-place scaling off: a full upgrade": {
			d: standalone(true, par(6)), o: cluster(1, "RUNNING"), noInPlace: true,
		},
		"more TaskManagers with in-place scaling off: still resized in place": {
			d: standalone(false, replicas(3)), o: cluster(1, "RUNNING"), noInPlace: true, wantInPlace: true,
		},
		"parallelism without the adaptive scheduler: a full upgrade": {
			d: standalone(false, both(replicas(3), par(6))), o: cluster(1, "RUNNING"),
		},
		"too few slots for the job: a full upgrade": {
			d: standalone(true, replicas(0)), o: cluster(1, "RUNNING"),
		},
		"a job that does not run: a full upgrade": {
			d: standalone(true, par(3)), o: cluster(1, "RESTARTING"),
		},
		"a scale mixed with an image change: a full upgrade": {
			d: standalone(true, both(par(3), func(s *flinkv1beta1.FlinkDeploymentSpec) { s.Image = "flink:1.20.1" })), o: cluster(1, "RUNNING"),
		},
		"an old Flink without the rescale API: a full upgrade": {
			d: standalone(true, both(par(3), func(s *flinkv1beta1.FlinkDeploymentSpec) { s.FlinkVersion = "v1_17" })), o: cluster(1, "RUNNING"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Decide(inputWith(tc.d, tc.o, func(in *Input) { in.Options.InPlaceScaling = !tc.noInPlace }))
			rs := got.Status.ReconciliationStatus
			if !tc.wantInPlace {
				if got.Action.Kind == ActScale || rs.State != flinkv1beta1.ReconciliationUpgrading {
					t.Fatalf("action %s state %s, want a recorded upgrade", got.Action.Kind, rs.State)
				}
				return
			}
			if got.Action.Kind != ActScale || rs.State != flinkv1beta1.ReconciliationDeployed || reconciled(got.Status).Generation() != 2 {
				t.Fatalf("action %s state %s generation %d; want a scale with generation 2 recorded as deployed", got.Action.Kind, rs.State, reconciled(got.Status).Generation())
			}
			if got.Action.Parallelism != tc.wantParallelism || !cmp.Equal(got.Action.Overrides, tc.wantOverrides) {
				t.Errorf("parallelism %d overrides %v, want %d %v", got.Action.Parallelism, got.Action.Overrides, tc.wantParallelism, tc.wantOverrides)
			}
			if got.Status.ObservedGeneration != 2 {
				t.Errorf("observedGeneration %d", got.Status.ObservedGeneration)
			}
		})
	}
}

func TestReapplyParallelism(t *testing.T) {
	adaptive := func(d *flinkv1beta1.FlinkDeployment) {
		d.Spec.FlinkConfiguration.Set("jobmanager.scheduler", "adaptive")
		r := newReconciledSpec(d.Spec, 1, false, RestoreSavepoint)
		d.Status.ReconciliationStatus.LastReconciledSpec, d.Status.ReconciliationStatus.LastStableSpec = r.Encode(), r.Encode()
	}
	runsWith := func(p int32) func(*Observation) { return func(o *Observation) { o.Job.Parallelism = p } }
	cases := map[string]struct {
		d    *flinkv1beta1.FlinkDeployment
		o    Observation
		want ActionKind
	}{
		"the job came back with another parallelism: rescaled to the spec's": {d: deployed(sp, adaptive), o: cluster(1, "RUNNING", runsWith(1)), want: ActScale},
		"the spec's parallelism: nothing":                                    {d: deployed(sp, adaptive), o: cluster(1, "RUNNING", runsWith(2)), want: ActNone},
		"not read (another scheduler): nothing":                              {d: deployed(sp), o: cluster(1, "RUNNING"), want: ActNone},
		"a job that is restarting: nothing yet":                              {d: deployed(sp, adaptive), o: cluster(1, "RESTARTING", runsWith(1)), want: ActNone},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Decide(input(tc.d, tc.o))
			if got.Action.Kind != tc.want || (tc.want == ActScale && got.Action.Parallelism != 2) {
				t.Errorf("action %+v, want %s to parallelism 2", got.Action, tc.want)
			}
		})
	}
}
