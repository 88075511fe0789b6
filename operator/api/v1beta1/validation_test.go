package v1beta1

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// app returns a valid stateless application deployment, changed by mods.
func app(mods ...func(*FlinkDeployment)) *FlinkDeployment {
	d := &FlinkDeployment{
		ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "ns"},
		Spec: FlinkDeploymentSpec{
			Image:              "flink:1.20",
			FlinkVersion:       "v1_20",
			FlinkConfiguration: NewFlinkConfiguration(map[string]string{"taskmanager.numberOfTaskSlots": "2"}),
			Job:                &JobSpec{JarURI: "local:///opt/flink/job.jar", UpgradeMode: UpgradeModeStateless},
		},
	}
	for _, m := range mods {
		m(d)
	}
	return d
}

func withConf(kv ...string) func(*FlinkDeployment) {
	return func(d *FlinkDeployment) {
		for i := 0; i+1 < len(kv); i += 2 {
			d.Spec.FlinkConfiguration.Set(kv[i], kv[i+1])
		}
	}
}

func withMode(m UpgradeMode) func(*FlinkDeployment) {
	return func(d *FlinkDeployment) { d.Spec.Job.UpgradeMode = m }
}

var haConf = []string{"high-availability.type", "kubernetes", "high-availability.storageDir", "file:///ha"}

func TestFlinkDeploymentValidate(t *testing.T) {
	cases := map[string]struct {
		obj *FlinkDeployment
		// wantErrs are the expected error strings (field path, type and detail), in order.
		wantErrs []string
	}{
		"a stateless application is valid": {obj: app()},
		"a canary resource has no spec and is valid": {
			obj: &FlinkDeployment{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{CanaryLabel: "true"}}},
		},
		"a session cluster is valid": {
			obj: app(func(d *FlinkDeployment) { d.Spec.Job = nil }),
		},
		"flinkVersion is required": {
			obj:      app(func(d *FlinkDeployment) { d.Spec.FlinkVersion = "" }),
			wantErrs: []string{"spec.flinkVersion: Required value: the Flink release line of the image, e.g. v1_20 or v2_2"},
		},
		"an old flinkVersion is not supported": {
			obj:      app(func(d *FlinkDeployment) { d.Spec.FlinkVersion = "v1_15" }),
			wantErrs: []string{`spec.flinkVersion: Unsupported value: "v1_15": supported values: "v1_16", "v1_17", "v1_18", "v1_19", "v1_20", "v2_0", "v2_1", "v2_2", "v2_3", "v2_4"`},
		},
		"too few TaskManager slots for the parallelism (standalone)": {
			obj: app(withConf("taskmanager.numberOfTaskSlots", "2"), func(d *FlinkDeployment) {
				one, four := int32(1), int32(4)
				d.Spec.Mode = DeploymentModeStandalone
				d.Spec.TaskManager, d.Spec.Job.Parallelism = &TaskManagerSpec{Replicas: &one}, &four
			}),
			wantErrs: []string{"spec.taskManager.replicas: Invalid value: 1: 1 TaskManager(s) × 2 slot(s) cannot run parallelism 4: the job would never be scheduled (add TaskManagers or slots, or use jobmanager.scheduler: adaptive)"},
		},
		"native mode: the replicas set the parallelism (Apache ignores job.parallelism then)": {
			obj: app(withConf("taskmanager.numberOfTaskSlots", "2"), func(d *FlinkDeployment) {
				one, four := int32(1), int32(4)
				d.Spec.TaskManager, d.Spec.Job.Parallelism = &TaskManagerSpec{Replicas: &one}, &four
			}),
		},
		"the adaptive scheduler runs with the slots there are": {
			obj: app(withConf("taskmanager.numberOfTaskSlots", "2", "jobmanager.scheduler", "adaptive"), func(d *FlinkDeployment) {
				one, four := int32(1), int32(4)
				d.Spec.TaskManager, d.Spec.Job.Parallelism = &TaskManagerSpec{Replicas: &one}, &four
			}),
		},
		"image is required": {
			obj:      app(func(d *FlinkDeployment) { d.Spec.Image = "" }),
			wantErrs: []string{"spec.image: Required value: the Flink container image"},
		},
		"an application job needs a jar": {
			obj:      app(func(d *FlinkDeployment) { d.Spec.Job.JarURI = "" }),
			wantErrs: []string{"spec.job.jarURI: Required value: an application job needs its jar, e.g. local:///opt/flink/usrlib/job.jar"},
		},
		"last-state without HA or checkpoints is refused twice over": {
			obj: app(withMode(UpgradeModeLastState)),
			wantErrs: []string{
				`spec.job.upgradeMode: Invalid value: "last-state": last-state needs high availability: set flinkConfiguration high-availability.type (e.g. kubernetes) and high-availability.storageDir`,
				`spec.job.upgradeMode: Invalid value: "last-state": last-state needs externalized checkpoints: set flinkConfiguration state.checkpoints.dir`,
			},
		},
		"last-state with HA but no checkpoint directory": {
			obj:      app(withMode(UpgradeModeLastState), withConf(haConf...)),
			wantErrs: []string{`spec.job.upgradeMode: Invalid value: "last-state": last-state needs externalized checkpoints: set flinkConfiguration state.checkpoints.dir`},
		},
		"last-state with HA and checkpoints is valid": {
			obj: app(withMode(UpgradeModeLastState), withConf(haConf...), withConf("state.checkpoints.dir", "file:///cp")),
		},
		"last-state accepts the legacy HA key and the Flink 2 checkpoint key": {
			obj: app(withMode(UpgradeModeLastState),
				withConf("high-availability", "org.apache.flink.kubernetes.highavailability.KubernetesHaServicesFactory",
					"high-availability.storageDir", "file:///ha", "execution.checkpointing.dir", "file:///cp")),
		},
		"HA type NONE does not count as HA": {
			obj: app(withMode(UpgradeModeLastState), withConf("high-availability.type", "NONE", "state.checkpoints.dir", "file:///cp")),
			wantErrs: []string{
				`spec.job.upgradeMode: Invalid value: "last-state": last-state needs high availability: set flinkConfiguration high-availability.type (e.g. kubernetes) and high-availability.storageDir`,
			},
		},
		"HA needs a storage directory": {
			obj:      app(withConf("high-availability.type", "kubernetes")),
			wantErrs: []string{"spec.flinkConfiguration[high-availability.storageDir]: Required value: high availability is enabled and needs a storage directory"},
		},
		"savepoint mode needs a savepoint directory": {
			obj:      app(withMode(UpgradeModeSavepoint)),
			wantErrs: []string{`spec.job.upgradeMode: Invalid value: "savepoint": savepoint needs a savepoint directory: set flinkConfiguration state.savepoints.dir`},
		},
		"savepoint mode with the Flink 2 savepoint key is valid": {
			obj: app(withMode(UpgradeModeSavepoint), withConf("execution.checkpointing.savepoint-dir", "file:///sp")),
		},
		"a max checkpoint age needs a savepoint directory (Apache's rule)": {
			obj: app(withConf("kubernetes.operator.job.upgrade.last-state.max.allowed.checkpoint.age", "10m")),
			wantErrs: []string{`spec.flinkConfiguration[kubernetes.operator.job.upgrade.last-state.max.allowed.checkpoint.age]: Invalid value: "10m": ` +
				"In order to use max-checkpoint age functionality config key[execution.checkpointing.savepoint-dir] must be set to allow triggering savepoint upgrades."},
		},
		"a max checkpoint age with a savepoint directory is valid": {
			obj: app(withConf("kubernetes.operator.job.upgrade.last-state.max.allowed.checkpoint.age", "10m"), withConf("state.savepoints.dir", "file:///sp")),
		},
		"standby JobManagers need HA": {
			obj:      app(func(d *FlinkDeployment) { d.Spec.JobManager = &JobManagerSpec{Replicas: ptr(int32(2))} }),
			wantErrs: []string{"spec.jobManager.replicas: Invalid value: 2: more than one JobManager needs high availability (flinkConfiguration high-availability.type: kubernetes)"},
		},
		"standby JobManagers with HA are valid": {
			obj: app(withConf(haConf...), func(d *FlinkDeployment) { d.Spec.JobManager = &JobManagerSpec{Replicas: ptr(int32(2))} }),
		},
		"keys the operator owns are forbidden": {
			obj:      app(withConf("kubernetes.cluster-id", "other")),
			wantErrs: []string{"spec.flinkConfiguration[kubernetes.cluster-id]: Forbidden: the operator sets this key itself"},
		},
		"REST SSL options are booleans, as Flink reads them": {
			obj:      app(withConf("security.ssl.rest.enabled", "yes"), withConf("security.ssl.verify-hostname", "FALSE")),
			wantErrs: []string{`spec.flinkConfiguration[security.ssl.rest.enabled]: Invalid value: "yes": Flink reads a boolean here (true or false) and would not start`},
		},
		"a configuration that does not flatten is invalid": {
			obj: app(func(d *FlinkDeployment) {
				d.Spec.FlinkConfiguration["state"] = jsonRaw(`{"savepoints.dir": "a"}`)
				d.Spec.FlinkConfiguration.Set("state.savepoints.dir", "b")
			}),
			wantErrs: []string{`spec.flinkConfiguration: Invalid value: "(configuration)": key "state.savepoints.dir" is set twice, as "state > savepoints.dir" and as "state.savepoints.dir"`},
		},
		"an ingress needs a template": {
			obj:      app(func(d *FlinkDeployment) { d.Spec.Ingress = &IngressSpec{} }),
			wantErrs: []string{"spec.ingress.template: Required value: a host and/or path template, e.g. {{name}}.{{namespace}}.example.com"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, e := range tc.obj.Validate() {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.wantErrs, got); diff != "" {
				t.Errorf("Validate() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFlinkSessionJobValidate(t *testing.T) {
	valid := func() *FlinkSessionJob {
		return &FlinkSessionJob{Spec: FlinkSessionJobSpec{
			DeploymentName: "session", Job: &JobSpec{JarURI: "https://example.com/job.jar"},
		}}
	}
	cases := map[string]struct {
		obj      *FlinkSessionJob
		wantErrs []string
	}{
		"a session job with deployment and jar is valid": {obj: valid()},
		"deploymentName is required": {
			obj:      func() *FlinkSessionJob { j := valid(); j.Spec.DeploymentName = ""; return j }(),
			wantErrs: []string{"spec.deploymentName: Required value: the session FlinkDeployment to run the job on"},
		},
		"job is required": {
			obj:      func() *FlinkSessionJob { j := valid(); j.Spec.Job = nil; return j }(),
			wantErrs: []string{"spec.job: Required value: a session job needs a job"},
		},
		"jarURI is required": {
			obj:      func() *FlinkSessionJob { j := valid(); j.Spec.Job.JarURI = ""; return j }(),
			wantErrs: []string{"spec.job.jarURI: Required value: the job jar (local://, file://, http:// or https://)"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, e := range tc.obj.Validate() {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.wantErrs, got); diff != "" {
				t.Errorf("Validate() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
