package v1beta1

import (
	"slices"
	"strconv"
	"strings"
)

// Flink configuration keys the API types reason about.
const (
	// ConfigHAType selects the high-availability services (Flink ≥ 1.17 spelling).
	ConfigHAType = "high-availability.type"
	// ConfigHALegacy is the pre-1.17 spelling of ConfigHAType.
	ConfigHALegacy = "high-availability"
	// ConfigHAStorageDir is where HA services keep job graphs and checkpoint pointers.
	ConfigHAStorageDir = "high-availability.storageDir"
	// ConfigCheckpointsDir is where externalized checkpoints go.
	ConfigCheckpointsDir = "state.checkpoints.dir"
	// ConfigCheckpointsDirV2 is the Flink 2.x spelling of ConfigCheckpointsDir.
	ConfigCheckpointsDirV2 = "execution.checkpointing.dir"
	// ConfigSavepointsDir is the default savepoint target directory.
	ConfigSavepointsDir = "state.savepoints.dir"
	// ConfigSavepointsDirV2 is the Flink 2.x spelling of ConfigSavepointsDir.
	ConfigSavepointsDirV2 = "execution.checkpointing.savepoint-dir"
)

// IsSessionCluster reports whether the deployment is a session cluster (it has no job).
func (d *FlinkDeployment) IsSessionCluster() bool { return d.Spec.Job == nil }

// HAEnabled reports whether a flattened Flink configuration turns on high availability.
func HAEnabled(conf map[string]string) bool {
	for _, k := range []string{ConfigHAType, ConfigHALegacy} {
		v := strings.TrimSpace(conf[k])
		if v != "" && !strings.EqualFold(v, "none") {
			return true
		}
	}
	return false
}

// FirstSet returns the value of the first of keys that is set to a non-empty value.
func FirstSet(conf map[string]string, keys ...string) (string, bool) {
	for _, k := range keys {
		if v := strings.TrimSpace(conf[k]); v != "" {
			return v, true
		}
	}
	return "", false
}

// GloballyTerminal reports whether a job in this state has ended for good (FAILED, CANCELED or
// FINISHED): it will not run again.
func (s JobStatusState) GloballyTerminal() bool {
	return s == JobStatusFailed || s == JobStatusCanceled || s == JobStatusFinished
}

// EffectiveState is the desired job state with the default (running) applied.
func (j *JobSpec) EffectiveState() JobState {
	if j.State == "" {
		return JobStateRunning
	}
	return j.State
}

// EffectiveUpgradeMode is the upgrade mode with the default (stateless) applied.
func (j *JobSpec) EffectiveUpgradeMode() UpgradeMode {
	if j.UpgradeMode == "" {
		return UpgradeModeStateless
	}
	return j.UpgradeMode
}

// CanaryLabel marks a canary resource: an empty FlinkDeployment the operator reconciles
// without deploying anything, so that a health probe can see the control loop turning (as the
// Apache operator does).
const CanaryLabel = "flink.apache.org/canary"

// IsCanary reports whether the deployment is a canary resource (label CanaryLabel "true").
func (d *FlinkDeployment) IsCanary() bool { return IsCanary(d.Labels) }

// IsCanary reports whether labels mark a canary resource: CanaryLabel "true", in any case, as
// the Apache operator reads it.
func IsCanary(labels map[string]string) bool { return strings.EqualFold(labels[CanaryLabel], "true") }

// JobParallelism is the parallelism an application cluster's job runs with, as the Apache
// operator gives it (FlinkConfigBuilder#getParallelism): in native mode with
// taskManager.replicas set, replicas × slots (job.parallelism is then ignored); otherwise
// job.parallelism, else parallelism.default.
func JobParallelism(spec *FlinkDeploymentSpec, conf map[string]string) int32 {
	if tm := spec.TaskManager; spec.Native() && tm != nil && tm.Replicas != nil && *tm.Replicas > 0 {
		return int32(min(int(*tm.Replicas)*TaskSlots(conf), MaxParallelism))
	}
	if spec.Job != nil && spec.Job.Parallelism != nil && *spec.Job.Parallelism > 0 {
		return *spec.Job.Parallelism
	}
	return int32(DefaultParallelism(conf))
}

// TaskSlots is taskmanager.numberOfTaskSlots, or 1 when unset or invalid (Flink's default).
func TaskSlots(conf map[string]string) int {
	slots, err := strconv.Atoi(conf["taskmanager.numberOfTaskSlots"])
	if err != nil || slots < 1 {
		return 1
	}
	return min(slots, MaxParallelism)
}

// DefaultParallelism is parallelism.default, within 1 and MaxParallelism (1 when unset or
// unreadable).
func DefaultParallelism(conf map[string]string) int {
	v, err := strconv.Atoi(strings.TrimSpace(conf["parallelism.default"]))
	if err != nil || v < 1 {
		return 1
	}
	return min(v, MaxParallelism)
}

// AdaptiveScheduler reports whether the configuration selects Flink's adaptive scheduler
// (jobmanager.scheduler: adaptive), which runs with the slots there are and rescales in place.
func AdaptiveScheduler(conf map[string]string) bool {
	return strings.EqualFold(conf["jobmanager.scheduler"], "adaptive")
}

// TaskManagerReplicas is the number of TaskManagers of a spec: taskManager.replicas, or when it
// is not set the largest parallelism of the job's vertices (its parallelism, or a vertex's
// override above it) divided by the slots per TaskManager, rounded up (at least one).
func TaskManagerReplicas(spec FlinkDeploymentSpec, conf map[string]string) int32 {
	if spec.TaskManager != nil && spec.TaskManager.Replicas != nil {
		return *spec.TaskManager.Replicas
	}
	slots := TaskSlots(conf)
	var p int
	if spec.Job != nil && spec.Job.Parallelism != nil {
		p = int(*spec.Job.Parallelism)
	} else {
		p = DefaultParallelism(conf)
	}
	// Vertices set above the job's parallelism (by the autoscaler, say) need their slots too.
	overrides, _ := ParseParallelismOverrides(conf[KeyParallelismOverrides])
	for _, n := range overrides {
		p = max(p, int(n))
	}
	return int32(max(1, (p+slots-1)/slots))
}

// The keys of status.clusterInfo, as the Apache operator fills them.
const (
	// ClusterInfoFlinkVersion is the Flink version the JobManager reports (GET /config).
	ClusterInfoFlinkVersion = "flink-version"
	// ClusterInfoFlinkRevision is the Flink build revision the JobManager reports.
	ClusterInfoFlinkRevision = "flink-revision"
	// ClusterInfoTotalCPU is the CPU of the JobManagers and TaskManagers together.
	ClusterInfoTotalCPU = "total-cpu"
	// ClusterInfoTotalMemory is their memory in bytes.
	ClusterInfoTotalMemory = "total-memory"
)

// AtLeast reports whether v (v<major>_<minor>) is release major.minor or later; false for a
// value of another form.
func (v FlinkVersion) AtLeast(major, minor int) bool {
	maj, min, ok := strings.Cut(strings.TrimPrefix(string(v), "v"), "_")
	a, errA := strconv.Atoi(maj)
	b, errB := strconv.Atoi(min)
	if !ok || errA != nil || errB != nil {
		return false
	}
	return a > major || (a == major && b >= minor)
}

// configAliases are the spellings of one Flink option: a default under one spelling does not
// apply when the resource sets another.
var configAliases = [][]string{
	{ConfigHAType, ConfigHALegacy},
	{ConfigCheckpointsDir, ConfigCheckpointsDirV2},
	{ConfigSavepointsDir, ConfigSavepointsDirV2},
}

// Conf is the resource's Flink configuration as the operator deploys and reads it: the
// flattened FlinkConfiguration over Defaults (the operator's defaults for the resource's
// namespace and Flink version). A default does not apply where the resource sets its key, or
// another spelling of its option. It errs as Flatten does.
func (s *FlinkDeploymentSpec) Conf() (map[string]string, error) {
	conf, err := s.FlinkConfiguration.Flatten()
	if err != nil {
		return nil, err
	}
	return withDefaults(conf, s.Defaults), nil
}

// withDefaults adds to conf (and returns it) each of defaults that conf does not set under
// any of its spellings.
func withDefaults(conf, defaults map[string]string) map[string]string {
	for k, v := range defaults {
		if _, set := conf[k]; set || aliasSet(conf, k) {
			continue
		}
		conf[k] = v
	}
	return conf
}

// aliasSet reports whether conf sets another spelling of key's option.
func aliasSet(conf map[string]string, key string) bool {
	for _, group := range configAliases {
		if !slices.Contains(group, key) {
			continue
		}
		for _, k := range group {
			if _, ok := conf[k]; ok && k != key {
				return true
			}
		}
	}
	return false
}

// FlinkDefaults gives the operator's Flink defaults for a namespace and Flink version
// (config.Live.FlinkDefaults); a nil one gives none. Every reader of FlinkDeployment specs
// (reconcilers, observers, the webhook) gives a spec them (ApplySpec) before anything reads
// its configuration (Conf).
// +kubebuilder:object:generate=false
type FlinkDefaults func(namespace, flinkVersion string) map[string]string

// Apply sets d's Spec.Defaults.
func (f FlinkDefaults) Apply(d *FlinkDeployment) {
	if d != nil {
		f.ApplySpec(d.Namespace, &d.Spec)
	}
}

// ApplySpec sets the Defaults of spec, a FlinkDeployment spec in namespace (a blue/green
// template's, say).
func (f FlinkDefaults) ApplySpec(namespace string, spec *FlinkDeploymentSpec) {
	if f != nil && spec != nil {
		spec.Defaults = f(namespace, string(spec.FlinkVersion))
	}
}
