package v1beta1

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// SupportedFlinkVersions are the Flink release lines Flinkop runs. The CRD enum also accepts
// older lines (for compatibility with stored Apache resources); Validate rejects them.
var SupportedFlinkVersions = []FlinkVersion{
	"v1_16", "v1_17", "v1_18", "v1_19", "v1_20", "v2_0", "v2_1", "v2_2", "v2_3", "v2_4",
}

// operatorOwnedKeys are Flink configuration keys the operator sets itself.
// They are Apache's forbidden keys: a tenant-chosen cluster id could reach another resource's
// pods, Services or HA metadata.
var operatorOwnedKeys = []string{
	"kubernetes.namespace", "kubernetes.cluster-id", "high-availability.cluster-id",
	// Deprecated spellings that also choose the HA cluster id (ZooKeeper HA).
	"high-availability.zookeeper.path.namespace", "recovery.zookeeper.path.namespace",
}

// internalKeyPrefix starts Flink's internal keys, which the operator sets for the job it runs
// (job id, main class, program arguments).
const internalKeyPrefix = "$internal."

// Validate checks the rules the CRD schema cannot express. Each error names its field path;
// the reconciler reports them in status.error and a Warning Event and keeps the last valid
// spec running. A canary resource (see IsCanary) deploys nothing and is always valid.
func (d *FlinkDeployment) Validate() field.ErrorList {
	if d.IsCanary() {
		return nil
	}
	spec := field.NewPath("spec")
	var errs field.ErrorList
	s := &d.Spec
	errs = append(errs, validateName(field.NewPath("metadata", "name"), d.Name)...)
	errs = append(errs, validateSize(spec, s)...)
	errs = append(errs, validateLogConfiguration(spec.Child("logConfiguration"), s.LogConfiguration)...)
	if p := s.ImagePullPolicy; p != "" && !slices.Contains(pullPolicies, p) {
		errs = append(errs, field.NotSupported(spec.Child("imagePullPolicy"), p, pullPolicies))
	}
	if jm := s.JobManager; jm != nil {
		errs = append(errs, validateResource(spec.Child("jobManager", "resource"), jm.Resource)...)
		errs = append(errs, validateRange(spec.Child("jobManager", "replicas"), jm.Replicas, 1, MaxReplicas)...)
	}
	if tm := s.TaskManager; tm != nil {
		errs = append(errs, validateResource(spec.Child("taskManager", "resource"), tm.Resource)...)
		errs = append(errs, validateRange(spec.Child("taskManager", "replicas"), tm.Replicas, 0, MaxReplicas)...)
	}
	if s.Job != nil {
		errs = append(errs, validateRange(spec.Child("job", "parallelism"), s.Job.Parallelism, 1, MaxParallelism)...)
	}

	switch {
	case s.FlinkVersion == "":
		errs = append(errs, field.Required(spec.Child("flinkVersion"), "the Flink release line of the image, e.g. v1_20 or v2_2"))
	case !slices.Contains(SupportedFlinkVersions, s.FlinkVersion):
		errs = append(errs, field.NotSupported(spec.Child("flinkVersion"), s.FlinkVersion, versionStrings()))
	}
	if s.Image == "" {
		errs = append(errs, field.Required(spec.Child("image"), "the Flink container image"))
	}

	conf, confErrs := validateConfiguration(spec.Child("flinkConfiguration"), s.FlinkConfiguration)
	errs = append(errs, confErrs...)
	if conf == nil {
		return errs // the rules below read the configuration
	}
	if IsLegacyConfigFile(s.FlinkVersion) {
		for _, k := range slices.Sorted(maps.Keys(conf)) {
			if why := LegacyConfigProblem(k, conf[k]); why != "" {
				errs = append(errs, field.Invalid(spec.Child("flinkConfiguration").Key(k), conf[k], why))
			}
		}
	}
	// The rules below read the configuration the cluster gets: the operator's defaults too.
	conf = withDefaults(conf, s.Defaults)
	ha := HAEnabled(conf)
	if ha {
		if _, ok := FirstSet(conf, ConfigHAStorageDir); !ok {
			errs = append(errs, field.Required(spec.Child("flinkConfiguration").Key(ConfigHAStorageDir),
				"high availability is enabled and needs a storage directory"))
		}
	}
	if jm := s.JobManager; jm != nil && jm.Replicas != nil && *jm.Replicas > 1 && !ha {
		errs = append(errs, field.Invalid(spec.Child("jobManager", "replicas"), *jm.Replicas,
			"more than one JobManager needs high availability (flinkConfiguration high-availability.type: kubernetes)"))
	}
	if s.Ingress != nil && s.Ingress.Template == "" {
		errs = append(errs, field.Required(spec.Child("ingress", "template"), "a host and/or path template, e.g. {{name}}.{{namespace}}.example.com"))
	}
	// In native mode the replicas set the parallelism (JobParallelism): nothing to refuse.
	if tm := s.TaskManager; !s.Native() && s.Job != nil && s.Job.Parallelism != nil && tm != nil && tm.Replicas != nil && !AdaptiveScheduler(conf) {
		slots := TaskSlots(conf)
		if int(*tm.Replicas)*slots < int(*s.Job.Parallelism) {
			errs = append(errs, field.Invalid(spec.Child("taskManager", "replicas"), *tm.Replicas, fmt.Sprintf(
				"%d TaskManager(s) × %d slot(s) cannot run parallelism %d: the job would never be scheduled (add TaskManagers or slots, or use jobmanager.scheduler: adaptive)",
				*tm.Replicas, slots, *s.Job.Parallelism)))
		}
	}
	if s.Job != nil {
		errs = append(errs, validateJob(spec.Child("job"), s.Job, conf, ha)...)
	}
	return errs
}

// SessionJarSchemes are the jarURI schemes of session jobs: local (already on the session
// cluster), file (on the operator's file system), http and https (fetched by the operator).
var SessionJarSchemes = []string{"local", "file", "http", "https"}

// Validate checks the session job rules the CRD schema cannot express.
func (j *FlinkSessionJob) Validate() field.ErrorList {
	if IsCanary(j.Labels) {
		return nil // runs nothing: see CanaryLabel
	}
	spec := field.NewPath("spec")
	var errs field.ErrorList
	if j.Spec.DeploymentName == "" {
		errs = append(errs, field.Required(spec.Child("deploymentName"), "the session FlinkDeployment to run the job on"))
	}
	if j.Spec.Job == nil {
		errs = append(errs, field.Required(spec.Child("job"), "a session job needs a job"))
	} else if j.Spec.Job.JarURI == "" {
		errs = append(errs, field.Required(spec.Child("job", "jarURI"), "the job jar (local://, file://, http:// or https://)"))
	} else if u, err := ParseJarURI(j.Spec.Job.JarURI); err != nil || !slices.Contains(SessionJarSchemes, u.Scheme) {
		errs = append(errs, field.Invalid(spec.Child("job", "jarURI"), redactURI(j.Spec.Job.JarURI),
			"a session job jar is a .jar at a local://, file://, http:// or https:// URI, without user information, query or fragment"))
	} else {
		errs = append(errs, validateRange(spec.Child("job", "parallelism"), j.Spec.Job.Parallelism, 1, MaxParallelism)...)
	}
	errs = append(errs, validateSize(spec, &j.Spec)...)
	_, confErrs := validateConfiguration(spec.Child("flinkConfiguration"), j.Spec.FlinkConfiguration)
	return append(errs, confErrs...)
}

func validateConfiguration(path *field.Path, c FlinkConfiguration) (map[string]string, field.ErrorList) {
	conf, err := c.Flatten()
	if err != nil {
		return nil, field.ErrorList{field.Invalid(path, "(configuration)", err.Error())}
	}
	var errs field.ErrorList
	for _, k := range slices.Sorted(maps.Keys(conf)) {
		if slices.Contains(operatorOwnedKeys, k) || strings.HasPrefix(k, internalKeyPrefix) {
			errs = append(errs, field.Forbidden(path.Key(k), "the operator sets this key itself"))
		}
		if v := conf[k]; slices.Contains(flinkBooleanKeys, k) && !strings.EqualFold(v, "true") && !strings.EqualFold(v, "false") {
			errs = append(errs, field.Invalid(path.Key(k), v, "Flink reads a boolean here (true or false) and would not start"))
		}
	}
	return conf, errs
}

// flinkBooleanKeys are the boolean Flink options the operator reads too (how it calls the
// REST endpoint): a value Flink cannot parse fails the JobManager, so it is refused at once.
var flinkBooleanKeys = []string{"security.ssl.rest.enabled", "security.ssl.rest.authentication-enabled", "security.ssl.verify-hostname"}

func validateJob(path *field.Path, job *JobSpec, conf map[string]string, ha bool) field.ErrorList {
	var errs field.ErrorList
	if job.JarURI == "" {
		errs = append(errs, field.Required(path.Child("jarURI"), "an application job needs its jar, e.g. local:///opt/flink/usrlib/job.jar"))
	}
	mode := path.Child("upgradeMode")
	switch job.EffectiveUpgradeMode() {
	case UpgradeModeLastState:
		if !ha {
			errs = append(errs, field.Invalid(mode, job.UpgradeMode,
				"last-state needs high availability: set flinkConfiguration high-availability.type (e.g. kubernetes) and high-availability.storageDir"))
		}
		if _, ok := FirstSet(conf, ConfigCheckpointsDir, ConfigCheckpointsDirV2); !ok {
			errs = append(errs, field.Invalid(mode, job.UpgradeMode,
				fmt.Sprintf("last-state needs externalized checkpoints: set flinkConfiguration %s", ConfigCheckpointsDir)))
		}
	case UpgradeModeSavepoint:
		if _, ok := FirstSet(conf, ConfigSavepointsDir, ConfigSavepointsDirV2); !ok {
			errs = append(errs, field.Invalid(mode, job.UpgradeMode,
				fmt.Sprintf("savepoint needs a savepoint directory: set flinkConfiguration %s", ConfigSavepointsDir)))
		}
	}
	_, maxAge := conf[configMaxCheckpointAge]
	if _, dir := FirstSet(conf, ConfigSavepointsDir, ConfigSavepointsDirV2); maxAge && !dir {
		// Apache's rule and message: a checkpoint too old is replaced by a savepoint upgrade.
		errs = append(errs, field.Invalid(field.NewPath("spec", "flinkConfiguration").Key(configMaxCheckpointAge), conf[configMaxCheckpointAge],
			fmt.Sprintf("In order to use max-checkpoint age functionality config key[%s] must be set to allow triggering savepoint upgrades.", ConfigSavepointsDirV2)))
	}
	return errs
}

// configMaxCheckpointAge is the operator key that turns a last-state upgrade with too old a
// checkpoint into a savepoint upgrade.
const configMaxCheckpointAge = "kubernetes.operator.job.upgrade.last-state.max.allowed.checkpoint.age"

func versionStrings() []string {
	out := make([]string, len(SupportedFlinkVersions))
	for i, v := range SupportedFlinkVersions {
		out[i] = string(v)
	}
	return out
}

// redactURI hides the password of a URI that has one (it is echoed in status and Events).
func redactURI(uri string) string {
	if u, err := url.Parse(uri); err == nil {
		return u.Redacted()
	}
	return "(unparsable URI)"
}
