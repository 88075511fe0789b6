package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// Option keys, as the Apache operator names them.
const (
	KeyReconcileInterval         = "kubernetes.operator.reconcile.interval"
	KeyProgressCheckInterval     = "kubernetes.operator.observer.progress-check.interval"
	KeyRestReadyDelay            = "kubernetes.operator.observer.rest-ready.delay"
	KeySavepointHistoryMaxCount  = "kubernetes.operator.savepoint.history.max.count"
	KeySavepointHistoryMaxAge    = "kubernetes.operator.savepoint.history.max.age"
	KeyLastStateFallback         = "kubernetes.operator.job.upgrade.last-state-fallback.enabled"
	KeyLastStateMaxCheckpointAge = "kubernetes.operator.job.upgrade.last-state.max.allowed.checkpoint.age"
	KeySavepointOnDeletion       = "kubernetes.operator.job.savepoint-on-deletion"
	KeySavepointFormat           = "kubernetes.operator.savepoint.format.type"
	KeyCheckpointType            = "kubernetes.operator.checkpoint.type"
	KeyDeploymentReadyTimeout    = "kubernetes.operator.deployment.readiness.timeout"
	KeyRollbackEnabled           = "kubernetes.operator.deployment.rollback.enabled"
	KeyJMDeploymentRecovery      = "kubernetes.operator.jm-deployment-recovery.enabled"
	KeyPeriodicSavepoint         = "kubernetes.operator.periodic.savepoint.interval"
	KeyPeriodicCheckpoint        = "kubernetes.operator.periodic.checkpoint.interval"
	KeyFlinkClientTimeout        = "kubernetes.operator.flink.client.timeout"
	KeyFlinkCancelTimeout        = "kubernetes.operator.flink.client.cancel.timeout"
	KeyJobSubmissionTimeout      = "kubernetes.operator.job.submission.timeout"
	KeyIgnorePendingSavepoint    = "kubernetes.operator.job.upgrade.ignore-pending-savepoint"
	KeyDrainOnSavepoint          = "kubernetes.operator.job.drain-on-savepoint-deletion"
	KeyLastStateJobCancel        = "kubernetes.operator.job.upgrade.last-state.job-cancel.enabled"
	KeyInPlaceScaling            = "kubernetes.operator.job.upgrade.inplace-scaling.enabled"
	KeyBlockOnSessionJobs        = "kubernetes.operator.session.deletion.block-on-session-jobs"
	KeyBlockOnUnmanagedJobs      = "kubernetes.operator.session.deletion.block-on-unmanaged-jobs"
	KeyJMShutdownTTL             = "kubernetes.operator.jm-deployment.shutdown-ttl"
	KeyRestartFailed             = "kubernetes.operator.job.restart.failed"
	KeySavepointCleanup          = "kubernetes.operator.savepoint.cleanup.enabled"
	KeySnapshotResources         = "kubernetes.operator.snapshot.resource.enabled"
	KeyHealthCheck               = "kubernetes.operator.cluster.health-check.enabled"
	KeyHealthRestartsThreshold   = "kubernetes.operator.cluster.health-check.restarts.threshold"
	KeyHealthRestartsWindow      = "kubernetes.operator.cluster.health-check.restarts.window"
	KeyHealthCheckpoints         = "kubernetes.operator.cluster.health-check.checkpoint-progress.enabled"
	KeyHealthCheckpointsWindow   = "kubernetes.operator.cluster.health-check.checkpoint-progress.window"
	KeyCanaryTimeout             = "kubernetes.operator.health.canary.resource.timeout"
	KeyExceptionEventsLimit      = "kubernetes.operator.events.exceptions.limit-per-reconciliation"
	KeyExceptionStackLines       = "kubernetes.operator.events.exceptions.stacktrace-lines"
	// KeyPodTemplateMergeByName merges the pod templates' arrays by name, not by index. The
	// renderer reads it from the resource's configuration, where the operator's file puts it
	// as a Flink default (flinkDefault).
	KeyPodTemplateMergeByName = "kubernetes.operator.pod-template.merge-arrays-by-name"
	// KeyJMStartupProbe gives the JobManager a startup probe on its REST API (true by default).
	// The renderer reads it from the resource's configuration, as KeyPodTemplateMergeByName.
	KeyJMStartupProbe = "kubernetes.operator.jm-deployment.startup.probe.enabled"
)

// Options are the operator options that matter for one resource.
type Options struct {
	// ReconcileInterval is how often a stable resource is looked at again.
	ReconcileInterval time.Duration
	// ProgressCheckInterval is how often a resource is polled while something is in flight
	// (deploying, savepoint pending, job starting).
	ProgressCheckInterval time.Duration
	// RestReadyDelay is how long to wait after the JobManager Deployment is available before
	// the REST API is expected to answer.
	RestReadyDelay time.Duration
	// SavepointHistoryMaxCount and SavepointHistoryMaxAge trim the savepoint history.
	SavepointHistoryMaxCount int
	SavepointHistoryMaxAge   time.Duration
	// SavepointHistoryMaxCountThreshold and SavepointHistoryMaxAgeThreshold cap them
	// (operator-wide; 0: no cap).
	SavepointHistoryMaxCountThreshold int
	SavepointHistoryMaxAgeThreshold   time.Duration
	// LastStateFallback lets a savepoint upgrade of a job that is not running fall back to
	// last-state when HA metadata is available.
	LastStateFallback bool
	// LastStateMaxCheckpointAge makes a last-state upgrade of a running job whose newest
	// checkpoint is older than this take a savepoint instead (0: no limit).
	LastStateMaxCheckpointAge time.Duration
	// DrainOnSavepoint drains a job (MAX_WATERMARK) before every stop-with-savepoint: on
	// deletion, upgrade and suspend, as Apache reads it despite its name.
	DrainOnSavepoint bool
	// LastStateJobCancel makes a last-state upgrade of a running job cancel it and restore its
	// newest checkpoint, instead of deleting the cluster and recovering from HA metadata.
	LastStateJobCancel bool
	// InPlaceScaling applies a new parallelism to a running job on the adaptive scheduler
	// through Flink's resource requirements API; off, a parallelism change is an upgrade.
	InPlaceScaling bool
	// BlockOnSessionJobs holds a session cluster's deletion while FlinkSessionJobs target it;
	// off, the cluster goes at once and its session jobs release their finalizers without
	// cancelling their jobs. BlockOnUnmanagedJobs (only with BlockOnSessionJobs) also holds it
	// while the cluster runs a job no FlinkSessionJob manages.
	BlockOnSessionJobs   bool
	BlockOnUnmanagedJobs bool
	// IgnorePendingSavepoint lets an upgrade or suspend go ahead while a manual or periodic
	// savepoint is in flight (the savepoint is abandoned); by default it waits for it.
	IgnorePendingSavepoint bool
	// JMShutdownTTL is how long the JobManager Deployment of an application whose job ended
	// for good (FINISHED, FAILED, CANCELED) is kept after the job's last status change; then
	// it is deleted, HA metadata kept.
	JMShutdownTTL time.Duration
	// SavepointOnDeletion takes a savepoint (stop-with-savepoint) before deleting a job.
	SavepointOnDeletion bool
	// SavepointFormat is CANONICAL or NATIVE.
	SavepointFormat string
	// CheckpointType is FULL or INCREMENTAL: the type of the checkpoints a job's
	// checkpointTriggerNonce and periodic checkpoints ask for.
	CheckpointType string
	// DeploymentReadyTimeout bounds how long a new spec may take to become stable.
	DeploymentReadyTimeout time.Duration
	// RollbackEnabled, JMDeploymentRecovery and PeriodicSavepoint are read for the
	// resilience features.
	RollbackEnabled      bool
	JMDeploymentRecovery bool
	PeriodicSavepoint    Periodic
	// PeriodicCheckpoint takes a full checkpoint when due while the job runs (zero: never).
	PeriodicCheckpoint Periodic
	// FlinkClientTimeout bounds every Flink REST call but a job's cancel (FlinkCancelTimeout)
	// and a session job's jar run (JobSubmissionTimeout). Operator-wide.
	FlinkClientTimeout   time.Duration
	FlinkCancelTimeout   time.Duration
	JobSubmissionTimeout time.Duration
	// RestartFailedJobs restarts a FAILED job with its upgrade mode.
	RestartFailedJobs bool
	// SavepointCleanup disposes the savepoints trimmed from the history.
	SavepointCleanup bool
	// SnapshotResources runs the FlinkStateSnapshot controller and records a job's savepoints
	// as FlinkStateSnapshots. A resource may turn the records off for itself, not on when the
	// operator has them off.
	SnapshotResources bool
	// SnapshotAllowedPathPrefixes are where snapshots may record and dispose of savepoints
	// besides their namespace's state directories: KeySnapshotAllowedPathPrefixes's entries,
	// trimmed, joined by commas (a string keeps Options comparable; SnapshotPathPrefixes
	// splits it).
	SnapshotAllowedPathPrefixes string
	// HealthCheck restarts a running job that is unhealthy: HealthRestartsThreshold restarts
	// within HealthRestartsWindow, or (HealthCheckpoints) no completed checkpoint within
	// HealthCheckpointsWindow.
	HealthCheck             bool
	HealthRestartsThreshold int
	HealthRestartsWindow    time.Duration
	HealthCheckpoints       bool
	HealthCheckpointsWindow time.Duration
	// CanaryTimeout is how long a canary resource may take to be reconciled after the
	// operator changed it before the health probe fails (operator-wide).
	CanaryTimeout time.Duration
	// ExceptionEventsLimit bounds the JobException Events of one reconcile, and
	// ExceptionStackLines the stack trace lines of each.
	ExceptionEventsLimit int
	ExceptionStackLines  int
	// Ingress bounds the Ingress spec.ingress renders (operator-wide or per namespace only).
	Ingress IngressPolicy
	// Exceptions shape status.error's JSON (operator-wide or per namespace only).
	Exceptions ExceptionOptions
}

// Defaults are the Apache operator's defaults.
func Defaults() Options {
	return Options{
		ReconcileInterval: time.Minute, ProgressCheckInterval: 10 * time.Second, RestReadyDelay: 10 * time.Second,
		SavepointHistoryMaxCount: 10, SavepointHistoryMaxAge: 24 * time.Hour, LastStateFallback: true,
		SavepointFormat: "CANONICAL", CheckpointType: "FULL", DeploymentReadyTimeout: 5 * time.Minute, JMShutdownTTL: 24 * time.Hour, InPlaceScaling: true, BlockOnSessionJobs: true, BlockOnUnmanagedJobs: true, JMDeploymentRecovery: true,
		FlinkClientTimeout: 10 * time.Second, FlinkCancelTimeout: time.Minute, JobSubmissionTimeout: 10 * time.Minute, SavepointCleanup: true, SnapshotResources: true,
		HealthRestartsThreshold: 64, HealthRestartsWindow: 2 * time.Minute, HealthCheckpoints: true, HealthCheckpointsWindow: 5 * time.Minute,
		CanaryTimeout: time.Minute, ExceptionEventsLimit: 10, ExceptionStackLines: 5, Exceptions: DefaultExceptionOptions(),
	}
}

// Flat reads an options file's flat "key: value" lines.
func Flat(data []byte) (map[string]string, error) {
	raw := map[string]any{}
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	flat := map[string]string{}
	for k, v := range raw {
		flat[k] = fmt.Sprint(v)
	}
	return flat, nil
}

// With returns o overridden by the kubernetes.operator.* keys of conf (a flattened Flink
// configuration). Other keys are ignored; a malformed or out-of-bounds value is an error
// naming the key, and then o is returned unchanged (no partial override takes effect).
func (o Options) With(conf map[string]string) (Options, error) {
	base := o
	var errs []string
	dur := func(key string, dst *time.Duration) {
		if v, ok := conf[key]; ok {
			d, err := ParseDuration(v)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s: %v", key, err))
				return
			}
			*dst = d
		}
	}
	boolean := func(key string, dst *bool) {
		if v, ok := conf[key]; ok {
			b, err := strconv.ParseBool(strings.TrimSpace(v))
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s: %q is not true or false", key, v))
				return
			}
			*dst = b
		}
	}
	var mergeByName bool
	boolean(KeyPodTemplateMergeByName, &mergeByName) // read by the renderer; checked here
	var startupProbe bool
	boolean(KeyJMStartupProbe, &startupProbe) // read by the renderer; checked here
	dur(KeyReconcileInterval, &o.ReconcileInterval)
	dur(KeyProgressCheckInterval, &o.ProgressCheckInterval)
	dur(KeyRestReadyDelay, &o.RestReadyDelay)
	dur(KeySavepointHistoryMaxAge, &o.SavepointHistoryMaxAge)
	dur(KeyDeploymentReadyTimeout, &o.DeploymentReadyTimeout)
	periodic := func(key string, dst *Periodic) {
		if v, ok := conf[key]; ok {
			p, err := ParsePeriodic(v)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s: %v", key, err))
				return
			}
			*dst = p
		}
	}
	periodic(KeyPeriodicSavepoint, &o.PeriodicSavepoint)
	periodic(KeyPeriodicCheckpoint, &o.PeriodicCheckpoint)
	dur(KeyLastStateMaxCheckpointAge, &o.LastStateMaxCheckpointAge)
	dur(KeyFlinkClientTimeout, &o.FlinkClientTimeout)
	dur(KeyFlinkCancelTimeout, &o.FlinkCancelTimeout)
	dur(KeyJobSubmissionTimeout, &o.JobSubmissionTimeout)
	boolean(KeyLastStateFallback, &o.LastStateFallback)
	boolean(KeySavepointOnDeletion, &o.SavepointOnDeletion)
	boolean(KeyIgnorePendingSavepoint, &o.IgnorePendingSavepoint)
	boolean(KeyDrainOnSavepoint, &o.DrainOnSavepoint)
	boolean(KeyLastStateJobCancel, &o.LastStateJobCancel)
	boolean(KeyInPlaceScaling, &o.InPlaceScaling)
	boolean(KeyBlockOnSessionJobs, &o.BlockOnSessionJobs)
	boolean(KeyBlockOnUnmanagedJobs, &o.BlockOnUnmanagedJobs)
	dur(KeyJMShutdownTTL, &o.JMShutdownTTL)
	boolean(KeyRollbackEnabled, &o.RollbackEnabled)
	boolean(KeyJMDeploymentRecovery, &o.JMDeploymentRecovery)
	boolean(KeyRestartFailed, &o.RestartFailedJobs)
	boolean(KeySavepointCleanup, &o.SavepointCleanup)
	boolean(KeySnapshotResources, &o.SnapshotResources)
	o.SnapshotResources = o.SnapshotResources && base.SnapshotResources
	errs = append(errs, o.readSnapshotPaths(conf)...)
	boolean(KeyHealthCheck, &o.HealthCheck)
	boolean(KeyHealthCheckpoints, &o.HealthCheckpoints)
	dur(KeyHealthRestartsWindow, &o.HealthRestartsWindow)
	dur(KeyHealthCheckpointsWindow, &o.HealthCheckpointsWindow)
	dur(KeyCanaryTimeout, &o.CanaryTimeout)
	errs = append(errs, o.checkBounds(conf)...)
	errs = append(errs, o.Ingress.read(conf)...)
	errs = append(errs, o.Exceptions.read(conf)...)
	positive := func(key string, dst *int) {
		if v, ok := conf[key]; ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 1 {
				errs = append(errs, fmt.Sprintf("%s: %q is not a positive number", key, v))
				return
			}
			*dst = n
		}
	}
	positive(KeySavepointHistoryMaxCount, &o.SavepointHistoryMaxCount)
	positive(KeySavepointHistoryMaxCountThreshold, &o.SavepointHistoryMaxCountThreshold)
	dur(KeySavepointHistoryMaxAgeThreshold, &o.SavepointHistoryMaxAgeThreshold)
	if v, ok := conf[KeySavepointHistoryMaxAgeThreshold]; ok && o.SavepointHistoryMaxAgeThreshold <= 0 {
		errs = append(errs, fmt.Sprintf("%s: %q is not a positive duration", KeySavepointHistoryMaxAgeThreshold, v))
	}
	o.capHistory()
	positive(KeyHealthRestartsThreshold, &o.HealthRestartsThreshold)
	positive(KeyExceptionEventsLimit, &o.ExceptionEventsLimit)
	positive(KeyExceptionStackLines, &o.ExceptionStackLines)
	if o.ExceptionEventsLimit > MaxExceptionEvents || o.ExceptionStackLines > MaxStackLines {
		errs = append(errs, fmt.Sprintf("%s is at most %d and %s at most %d", KeyExceptionEventsLimit, MaxExceptionEvents, KeyExceptionStackLines, MaxStackLines))
	}
	errs = append(errs, enum(conf, KeySavepointFormat, &o.SavepointFormat, "CANONICAL", "NATIVE")...)
	errs = append(errs, enum(conf, KeyCheckpointType, &o.CheckpointType, "FULL", "INCREMENTAL")...)
	if len(errs) > 0 {
		return base, fmt.Errorf("invalid operator options: %s", strings.Join(errs, "; "))
	}
	return o, nil
}

// enum reads key of conf into dst, upper-cased, when it is one of values; else it returns
// the error naming the key.
func enum(conf map[string]string, key string, dst *string, values ...string) []string {
	v, ok := conf[key]
	if !ok {
		return nil
	}
	if u := strings.ToUpper(strings.TrimSpace(v)); slices.Contains(values, u) {
		*dst = u
		return nil
	}
	return []string{fmt.Sprintf("%s: %q is not %s", key, v, strings.Join(values, " or "))}
}

// OperatorKeys returns the kubernetes.operator.* entries of conf (a resource's configuration)
// that a resource may set: all but those read from the operator's configuration only
// (IsOperatorWideKey).
func OperatorKeys(conf map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range conf {
		if strings.HasPrefix(k, "kubernetes.operator.") && !IsOperatorWideKey(k) {
			out[k] = v
		}
	}
	return out
}

// ParseDuration reads a duration as Flink's TimeUtils.parseDuration does: digits, then an
// optional unit label (d, day(s), h, hour(s), min, m, minute(s), s, sec(s), second(s), ms,
// milli(s), millisecond(s), µs, micro(s), microsecond(s), ns, nano(s), nanosecond(s)); a bare
// number is milliseconds. Values above MaxDuration are refused.
func ParseDuration(s string) (time.Duration, error) {
	trimmed := strings.TrimSpace(s)
	i := 0
	for i < len(trimmed) && trimmed[i] >= '0' && trimmed[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("%q is not a duration: it does not start with a number", s)
	}
	n, err := strconv.ParseInt(trimmed[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration: the number does not fit 64 bits", s)
	}
	label := strings.ToLower(strings.TrimSpace(trimmed[i:]))
	unit, ok := durationUnits[label]
	if !ok {
		return 0, fmt.Errorf("%q has an unknown time unit %q (d, h, min, m, s, ms, µs, ns and their long forms)", s, label)
	}
	if n > int64(MaxDuration/unit) {
		return 0, fmt.Errorf("%q is longer than %s", s, MaxDuration)
	}
	return time.Duration(n) * unit, nil
}

// durationUnits are Flink's time unit labels ("" is milliseconds).
var durationUnits = func() map[string]time.Duration {
	out := map[string]time.Duration{"": time.Millisecond, "d": 24 * time.Hour, "h": time.Hour, "min": time.Minute, "m": time.Minute, "s": time.Second, "ms": time.Millisecond, "µs": time.Microsecond, "ns": time.Nanosecond}
	for label, d := range map[string]time.Duration{
		"day": 24 * time.Hour, "hour": time.Hour, "minute": time.Minute, "sec": time.Second, "second": time.Second,
		"milli": time.Millisecond, "millisecond": time.Millisecond, "micro": time.Microsecond, "microsecond": time.Microsecond,
		"nano": time.Nanosecond, "nanosecond": time.Nanosecond,
	} {
		out[label], out[label+"s"] = d, d
	}
	return out
}()
