package config

// Support says what this operator does with an option.
type Support string

// What this operator does with an option.
const (
	// Implemented options are read, with the Apache operator's meaning.
	Implemented Support = "yes"
	// Ignored options are the Apache operator's; this operator accepts them and does nothing
	// with them.
	Ignored Support = "no"
	// Own options are this operator's, named in the Apache operator's namespace.
	Own Support = "flinkop only"
	// Deprecated options are older names the Apache operator still reads; this operator does
	// not: an Option's Note names the current one.
	Deprecated Support = "deprecated"
)

// Option is one option of the catalogue.
type Option struct {
	// Key is the option's name; a segment written <name> stands for any one or more segments.
	Key string
	// Default is the Apache operator's default as its documentation writes it ("" when it has
	// none); Note says where this operator's differs.
	Default string
	// Support says what this operator does with the option.
	Support Support
	// Note: for a Deprecated option the current name, else what differs from the Apache
	// operator, or where else this operator is told the same.
	Note string
}

// OperatorOptions is every kubernetes.operator.* option: the Apache operator's (its
// documentation's list, the three blue/green options and the deprecated names it still
// reads), and this operator's own, sorted by key. The autoscaler's are in AutoscalerOptions.
var OperatorOptions = []Option{
	{"kubernetes.operator.bluegreen.abort.grace-period", "10 min", Implemented, "FlinkBlueGreenDeployment only"},
	{"kubernetes.operator.bluegreen.deployment-deletion.delay", "0 ms", Implemented, "FlinkBlueGreenDeployment only"},
	{"kubernetes.operator.bluegreen.reconciliation.reschedule-interval", "15 s", Implemented, "FlinkBlueGreenDeployment only"},
	{"kubernetes.operator.checkpoint.trigger.grace-period", "1 min", Ignored, ""},
	{"kubernetes.operator.checkpoint.type", "FULL", Ignored, ""},
	{KeyHealthCheckpoints, "true", Implemented, ""},
	{KeyHealthCheckpointsWindow, "", Implemented, "unset here means 5 min"},
	{KeyHealthCheck, "false", Implemented, ""},
	{KeyHealthRestartsThreshold, "64", Implemented, ""},
	{KeyHealthRestartsWindow, "2 min", Implemented, ""},
	{"kubernetes.operator.cluster.resource-view.refresh-interval", "-1 min", Ignored, ""},
	{"kubernetes.operator.config.cache.size", "1000", Ignored, ""},
	{"kubernetes.operator.config.cache.timeout", "10 min", Ignored, ""},
	{"kubernetes.operator.default-configuration.flink-version.<version>.<key>", "", Implemented, "Flink and autoscaler keys; operator options per version are not read"},
	{"kubernetes.operator.default-configuration.namespace.<namespace>.<key>", "", Implemented, "operator options and Flink defaults"},
	{KeyDeploymentReadyTimeout, "5 min", Implemented, ""},
	{KeyRollbackEnabled, "false", Implemented, ""},
	{KeyDynamicConfigInterval, "5 min", Implemented, ""},
	{KeyDynamicConfig, "true", Implemented, ""},
	{KeyDynamicNamespaces, "false", Implemented, "read at start; when true the operator caches every namespace (or those of --namespaces)"},
	{KeyExceptionEventsLimit, "10", Implemented, "JobException Events of one reconcile; at most 50"},
	{KeyExceptionStackLines, "5", Implemented, "stack trace lines of a JobException Event; at most 100"},
	{"kubernetes.operator.exception.field.max.length", "2048", Ignored, ""},
	{"kubernetes.operator.exception.label.mapper", "", Ignored, ""},
	{"kubernetes.operator.exception.stacktrace.enabled", "false", Ignored, ""},
	{"kubernetes.operator.exception.stacktrace.max.length", "2048", Ignored, ""},
	{"kubernetes.operator.exception.throwable.list.max.count", "2", Ignored, ""},
	{"kubernetes.operator.flink.client.cancel.timeout", "1 min", Ignored, ""},
	{KeyFlinkClientTimeout, "10 s", Implemented, ""},
	{KeyCanaryTimeout, "1 min", Implemented, "canary resources fail /healthz when not reconciled in time"},
	{KeyHealthProbe, "true", Implemented, "read at start; the --health-probe-bind-address flag, when given, wins"},
	{KeyHealthProbePort, "8085", Implemented, "read at start; with neither probe option set the probes are at --health-probe-bind-address (default :8081, the chart's)"},
	{KeyIngressAllowWildcardHosts, "", Own, "whether spec.ingress may render a wildcard host (*.x); unset: true; from the operator's options only, per namespace too"},
	{KeyIngressAllowedAnnotations, "", Own, "annotation keys spec.ingress may set, a trailing * matching a prefix; unset: any; from the operator's options only, per namespace too"},
	{KeyIngressAllowedHosts, "", Own, "host patterns spec.ingress may render ({{namespace}}, {{name}}, a leading *. for one label); unset: any; from the operator's options only, per namespace too"},
	{"kubernetes.operator.ingress.manage", "true", Ignored, ""},
	{KeyJMDeploymentRecovery, "true", Implemented, ""},
	{"kubernetes.operator.jm-deployment.shutdown-ttl", "1 d", Ignored, ""},
	{KeyJMStartupProbe, "true", Implemented, "operator-wide, per namespace and per resource; with REST SSL the probe asks in HTTPS, with client authentication there is none"},
	{"kubernetes.operator.job.drain-on-savepoint-deletion", "false", Ignored, ""},
	{KeyRestartFailed, "false", Implemented, ""},
	{KeySavepointOnDeletion, "false", Implemented, ""},
	{"kubernetes.operator.job.submission.timeout", "10 min", Ignored, ""},
	{"kubernetes.operator.job.upgrade.ignore-pending-savepoint", "false", Ignored, ""},
	{"kubernetes.operator.job.upgrade.inplace-scaling.enabled", "true", Ignored, ""},
	{KeyLastStateFallback, "true", Implemented, ""},
	{"kubernetes.operator.job.upgrade.last-state.job-cancel.enabled", "false", Ignored, ""},
	{KeyLastStateMaxCheckpointAge, "", Implemented, ""},
	{"kubernetes.operator.josdk.metrics.enabled", "true", Ignored, ""},
	{"kubernetes.operator.jvm.metrics.enabled", "true", Ignored, ""},
	{"kubernetes.operator.kubernetes.client.metrics.enabled", "true", Ignored, ""},
	{"kubernetes.operator.kubernetes.client.metrics.http.response.code.groups.enabled", "false", Ignored, ""},
	{"kubernetes.operator.kubernetes.client.metrics.slow.request.threshold", "5 s", Ignored, ""},
	{KeyLabelSelector, "", Implemented, "changes apply while the operator runs"},
	{KeyLeaderElection, "false", Implemented, "read at start; the --leader-elect flag, when given, wins"},
	{KeyLeaseDuration, "15 s", Implemented, "read at start"},
	{KeyLeaseName, "", Implemented, "read at start; a Lease in the operator's namespace (unset: flinkop.flink.apache.org when --leader-elect is given)"},
	{KeyLeaseRenewDeadline, "10 s", Implemented, "read at start"},
	{KeyLeaseRetryPeriod, "2 s", Implemented, "read at start"},
	{"kubernetes.operator.metrics.histogram.sample.size", "1000", Ignored, ""},
	{"kubernetes.operator.metrics.reporter.<name>.<parameter>", "", Ignored, ""},
	{"kubernetes.operator.metrics.scope.k8soperator.resource", "<host>.k8soperator.<namespace>.<name>.resource.<resourcens>.<resourcename>.<resourcetype>", Ignored, ""},
	{"kubernetes.operator.metrics.scope.k8soperator.resourcens", "<host>.k8soperator.<namespace>.<name>.namespace.<resourcens>.<resourcetype>", Ignored, ""},
	{"kubernetes.operator.metrics.scope.k8soperator.system", "<host>.k8soperator.<namespace>.<name>.system", Ignored, ""},
	{"kubernetes.operator.observer.flink.client.timeout", "", Deprecated, "kubernetes.operator.flink.client.timeout"},
	{KeyProgressCheckInterval, "10 s", Implemented, ""},
	{KeyRestReadyDelay, "10 s", Implemented, ""},
	{"kubernetes.operator.observer.savepoint.trigger.grace-period", "", Deprecated, "kubernetes.operator.savepoint.trigger.grace-period"},
	{KeyPeriodicCheckpoint, "", Implemented, ""},
	{KeyPeriodicSavepoint, "", Implemented, ""},
	{"kubernetes.operator.plugins.listeners.<listener-name>.class", "", Ignored, ""},
	{KeyPodTemplateMergeByName, "false", Implemented, "operator-wide, per namespace and per resource; arrays of the common and the role's pod template merged by name"},
	{"kubernetes.operator.rate-limiter.limit", "5", Ignored, ""},
	{"kubernetes.operator.rate-limiter.refresh-period", "15 s", Ignored, ""},
	{KeyReconcileInterval, "1 min", Implemented, ""},
	{KeyReconcileParallelism, "50", Implemented, "this operator defaults to 200 (JOSDK 4's default, which Apache's operator had); -1 means 1,000"},
	{"kubernetes.operator.reconciler.flink.cancel.job.timeout", "", Deprecated, "kubernetes.operator.flink.client.cancel.timeout"},
	{"kubernetes.operator.reconciler.flink.cluster.shutdown.timeout", "", Deprecated, "kubernetes.operator.resource.cleanup.timeout"},
	{"kubernetes.operator.reconciler.jm-deployment-recovery.enabled", "", Deprecated, "kubernetes.operator.jm-deployment-recovery.enabled"},
	{"kubernetes.operator.reconciler.max.parallelism", "", Deprecated, "kubernetes.operator.reconcile.parallelism"},
	{"kubernetes.operator.reconciler.reschedule.interval", "", Deprecated, "kubernetes.operator.reconcile.interval"},
	{"kubernetes.operator.resource.cleanup.timeout", "5 min", Ignored, ""},
	{"kubernetes.operator.resource.deletion.propagation", "Foreground", Ignored, ""},
	{"kubernetes.operator.resource.lifecycle.metrics.enabled", "true", Ignored, ""},
	{"kubernetes.operator.resource.lifecycle.namespace.histograms.enabled", "true", Ignored, "no per-namespace lifecycle summaries (memory per namespace); the operator-wide ones are exported"},
	{"kubernetes.operator.resource.metrics.enabled", "true", Ignored, ""},
	{KeyRESTServiceAllowedTypes, "", Own, "REST Service types (kubernetes.rest-service.exposed.type) a resource may choose, comma-separated; unset: any; from the operator's options only, per namespace too"},
	{"kubernetes.operator.retry.initial.interval", "5 s", Ignored, ""},
	{"kubernetes.operator.retry.interval.multiplier", "1.5", Ignored, ""},
	{"kubernetes.operator.retry.max.attempts", "15", Ignored, ""},
	{"kubernetes.operator.retry.max.interval", "", Ignored, ""},
	{KeySavepointCleanup, "true", Implemented, ""},
	{"kubernetes.operator.savepoint.dispose-on-delete", "false", Ignored, ""},
	{KeySavepointFormat, "CANONICAL", Implemented, ""},
	{KeySavepointHistoryMaxAge, "1 d", Implemented, ""},
	{"kubernetes.operator.savepoint.history.max.age.threshold", "", Ignored, ""},
	{KeySavepointHistoryMaxCount, "10", Implemented, ""},
	{"kubernetes.operator.savepoint.history.max.count.threshold", "", Ignored, ""},
	{"kubernetes.operator.savepoint.trigger.grace-period", "1 min", Ignored, ""},
	{"kubernetes.operator.session.block-on-unmanaged-jobs", "", Deprecated, "kubernetes.operator.session.deletion.block-on-unmanaged-jobs"},
	{"kubernetes.operator.session.deletion.block-on-session-jobs", "true", Ignored, ""},
	{"kubernetes.operator.session.deletion.block-on-unmanaged-jobs", "true", Ignored, ""},
	{KeySnapshotAllowedPathPrefixes, "", Own, "where FlinkStateSnapshots may record and dispose of savepoints besides their namespace's state directories ({{namespace}}; * alone: any path); unset: those directories only; from the operator's options only, per namespace too"},
	{KeySnapshotMaxConcurrent, "", Own, "snapshots in flight across the fleet; unset: no bound"},
	{KeySnapshotResources, "true", Implemented, ""},
	{"kubernetes.operator.startup.stop-on-informer-error", "true", Ignored, ""},
	{"kubernetes.operator.termination.timeout", "10 s", Ignored, ""},
	{"kubernetes.operator.user.artifacts.allowed-schemes", "https", Ignored, ""},
	{"kubernetes.operator.user.artifacts.base.dir", "/opt/flink/artifacts", Ignored, ""},
	{"kubernetes.operator.user.artifacts.disallow-restricted-hosts", "true", Ignored, ""},
	{"kubernetes.operator.user.artifacts.http.header", "", Ignored, ""},
	{KeyWatchedNamespaces, AllNamespaces, Implemented, "changes apply while the operator runs when dynamic.namespaces.enabled is true; the --namespaces flag bounds it"},
}

// AutoscalerOptions are the Apache autoscaler's options, named after the autoscaler's prefix
// (job.autoscaler.; kubernetes.operator.job.autoscaler. is still read), sorted.
var AutoscalerOptions = []Option{
	{"backlog-processing.lag-threshold", "5 min", Implemented, ""},
	{"catch-up.duration", "30 min", Implemented, ""},
	{"enabled", "false", Implemented, ""},
	{"excluded.periods", "", Ignored, ""},
	{"flink.rest-client.timeout", "10 s", Ignored, ""},
	{"history.max.age", "1 d", Implemented, ""},
	{"history.max.count", "3", Implemented, ""},
	{"memory.gc-pressure.threshold", "1.0", Ignored, ""},
	{"memory.heap-usage.threshold", "1.0", Ignored, ""},
	{"memory.tuning.enabled", "false", Ignored, ""},
	{"memory.tuning.maximize-managed-memory", "false", Ignored, ""},
	{"memory.tuning.overhead", "0.2", Ignored, ""},
	{"memory.tuning.scale-down-compensation.enabled", "true", Ignored, ""},
	{"metrics.busy-time.aggregator", "MAX", Implemented, ""},
	{"metrics.custom-evaluator.<name>.<parameter>", "", Ignored, ""},
	{"metrics.custom-evaluator.<name>.class", "", Ignored, ""},
	{"metrics.custom-evaluators", "", Ignored, ""},
	{"metrics.window", "15 min", Implemented, ""},
	{"observed-scalability.coefficient-min", "0.5", Ignored, ""},
	{"observed-scalability.enabled", "false", Ignored, ""},
	{"observed-scalability.min-observations", "3", Ignored, ""},
	{"observed-true-processing-rate.lag-threshold", "30 s", Ignored, ""},
	{"observed-true-processing-rate.min-observations", "2", Ignored, ""},
	{"observed-true-processing-rate.switch-threshold", "0.15", Ignored, ""},
	{"quota.cpu", "", Ignored, ""},
	{"quota.memory", "", Ignored, ""},
	{"restart.time", "5 min", Implemented, ""},
	{"restart.time-tracking.enabled", "false", Ignored, ""},
	{"restart.time-tracking.limit", "15 min", Ignored, ""},
	{"scale-down.interval", "1 h", Implemented, ""},
	{"scale-down.max-factor", "0.6", Implemented, ""},
	{"scale-up.max-factor", "100000.0", Implemented, ""},
	{"scaling.custom-executor.<name>.<parameter>", "", Ignored, ""},
	{"scaling.custom-executor.<name>.class", "", Ignored, ""},
	{"scaling.custom-executors", "", Ignored, ""},
	{"scaling.effectiveness.detection.enabled", "false", Ignored, ""},
	{"scaling.effectiveness.threshold", "0.1", Ignored, ""},
	{"scaling.enabled", "true", Implemented, ""},
	{"scaling.event.interval", "30 min", Ignored, ""},
	{"scaling.parallelism-alignment.mode", "BALANCED", Ignored, ""},
	{"scaling.parallelism-alignment.mode.<name>.<parameter>", "", Ignored, ""},
	{"scaling.parallelism-alignment.mode.<name>.class", "", Ignored, ""},
	{"stabilization.interval", "5 min", Implemented, ""},
	{"target.utilization", "", Implemented, "the deprecated name of utilization.target, still read"},
	{"target.utilization.boundary", "0.3", Implemented, "deprecated by utilization.min and utilization.max, still read"},
	{"utilization.max", "", Implemented, ""},
	{"utilization.min", "", Implemented, ""},
	{"utilization.target", "0.7", Implemented, ""},
	{"vertex.exclude.ids", "", Implemented, ""},
	{"vertex.max-parallelism", "200", Implemented, ""},
	{"vertex.min-parallelism", "1", Implemented, ""},
}
