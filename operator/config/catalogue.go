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
	// NotApplicable options are the Apache operator's whose mechanism has no meaning outside
	// its JVM (a Java plugin class, a JVM metric, its configuration cache): an Option's Note
	// says what takes its place, and a resource or file that sets one is warned.
	NotApplicable Support = "not applicable"
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
	{KeyCheckpointType, "FULL", Implemented, "checkpointTriggerNonce and periodic checkpoints, which this operator triggers itself (Apache reads it only with snapshot.resource.enabled false); a FlinkStateSnapshot's checkpoint is FULL, as Apache's"},
	{KeyHealthCheckpoints, "true", Implemented, ""},
	{KeyHealthCheckpointsWindow, "", Implemented, "unset here means 5 min"},
	{KeyHealthCheck, "false", Implemented, ""},
	{KeyHealthRestartsThreshold, "64", Implemented, ""},
	{KeyHealthRestartsWindow, "2 min", Implemented, ""},
	{"kubernetes.operator.cluster.resource-view.refresh-interval", "-1 min", Ignored, ""},
	{"kubernetes.operator.config.cache.size", "1000", NotApplicable, "configurations are computed each reconcile from the spec; no cache to size"},
	{"kubernetes.operator.config.cache.timeout", "10 min", NotApplicable, "configurations are computed each reconcile from the spec; no cache to expire"},
	{"kubernetes.operator.default-configuration.flink-version.<version>.<key>", "", Implemented, "Flink and autoscaler keys; operator options per version are not read"},
	{"kubernetes.operator.default-configuration.namespace.<namespace>.<key>", "", Implemented, "operator options and Flink defaults"},
	{KeyDeploymentReadyTimeout, "5 min", Implemented, ""},
	{KeyRollbackEnabled, "false", Implemented, ""},
	{KeyDynamicConfigInterval, "5 min", Implemented, ""},
	{KeyDynamicConfig, "true", Implemented, ""},
	{KeyDynamicNamespaces, "false", Implemented, "read at start; when true the operator caches every namespace (or those of --namespaces)"},
	{KeyExceptionEventsLimit, "10", Implemented, "JobException Events of one reconcile; at most 50"},
	{KeyExceptionStackLines, "5", Implemented, "stack trace lines of a JobException Event; at most 100"},
	{KeyExceptionFieldMaxLength, "2048", Implemented, "operator-wide or per namespace; at most 8192"},
	{KeyExceptionLabelMapper, "", Implemented, "operator-wide or per namespace; Go regular expressions (RE2); at most 20 rules"},
	{KeyExceptionStackTrace, "false", Implemented, "operator-wide or per namespace; a failed job's stack trace, its first 100 lines and 4 KiB at most"},
	{KeyExceptionStackTraceMaxLength, "2048", Implemented, "operator-wide or per namespace; at most 8192"},
	{KeyExceptionThrowableMaxCount, "2", Implemented, "operator-wide or per namespace; a failed job's causes; at most 10"},
	{KeyFlinkCancelTimeout, "1 min", Implemented, "operator-wide; bounds a job's cancel call; at most 30 min"},
	{KeyFlinkClientTimeout, "10 s", Implemented, "operator-wide"},
	{KeyCanaryTimeout, "1 min", Implemented, "canary resources fail /healthz when not reconciled in time"},
	{KeyHealthProbe, "true", Implemented, "read at start; the --health-probe-bind-address flag, when given, wins"},
	{KeyHealthProbePort, "8085", Implemented, "read at start; with neither probe option set the probes are at --health-probe-bind-address (default :8081, the chart's)"},
	{KeyIngressAllowWildcardHosts, "", Own, "whether spec.ingress may render a wildcard host (*.x); unset: true; from the operator's options only, per namespace too"},
	{KeyIngressAllowedAnnotations, "", Own, "annotation keys spec.ingress may set, a trailing * matching a prefix; unset: any; from the operator's options only, per namespace too"},
	{KeyIngressAllowedHosts, "", Own, "host patterns spec.ingress may render ({{namespace}}, {{name}}, a leading *. for one label); unset: any; from the operator's options only, per namespace too"},
	{KeyIngressManage, "true", Implemented, "operator-wide or per namespace; FlinkDeployments and FlinkBlueGreenDeployments"},
	{KeyJMDeploymentRecovery, "true", Implemented, ""},
	{KeyJMShutdownTTL, "1 d", Implemented, "application deployments; counted from status.jobStatus.updateTime; HA metadata kept"},
	{KeyJMStartupProbe, "true", Implemented, "operator-wide, per namespace and per resource; with REST SSL the probe asks in HTTPS, with client authentication there is none"},
	{KeyDrainOnSavepoint, "false", Implemented, "every stop-with-savepoint (deletion, upgrade, suspend), as Apache's"},
	{KeyRestartFailed, "false", Implemented, ""},
	{KeySavepointOnDeletion, "false", Implemented, ""},
	{KeyJobSubmissionTimeout, "10 min", Implemented, "operator-wide; bounds a session job's jar run call; at most 30 min"},
	{KeyIgnorePendingSavepoint, "false", Implemented, "FlinkDeployments and session jobs; an abandoned savepoint is a SavepointError Warning"},
	{KeyInPlaceScaling, "true", Implemented, "FlinkDeployments; a TaskManager replica change of a standalone cluster stays in place"},
	{KeyLastStateFallback, "true", Implemented, ""},
	{KeyLastStateJobCancel, "false", Implemented, "FlinkDeployments; a session job's last-state upgrade always cancels"},
	{KeyLastStateMaxCheckpointAge, "", Implemented, ""},
	{"kubernetes.operator.josdk.metrics.enabled", "true", NotApplicable, "no Java Operator SDK: controller-runtime's controller_runtime_* metrics are always served"},
	{"kubernetes.operator.jvm.metrics.enabled", "true", NotApplicable, "no JVM: Go's go_* and process_* metrics are always served"},
	{"kubernetes.operator.kubernetes.client.metrics.enabled", "true", NotApplicable, "no fabric8 client: client-go's rest_client_* metrics are always served"},
	{"kubernetes.operator.kubernetes.client.metrics.http.response.code.groups.enabled", "false", NotApplicable, "client-go's rest_client_requests_total counts by code, always"},
	{"kubernetes.operator.kubernetes.client.metrics.slow.request.threshold", "5 s", NotApplicable, "client-go's rest_client_request_duration_seconds histogram shows slow requests"},
	{KeyLabelSelector, "", Implemented, "changes apply while the operator runs"},
	{KeyLeaderElection, "false", Implemented, "read at start; the --leader-elect flag, when given, wins"},
	{KeyLeaseDuration, "15 s", Implemented, "read at start"},
	{KeyLeaseName, "", Implemented, "read at start; a Lease in the operator's namespace (unset: flinkop.flink.apache.org when --leader-elect is given)"},
	{KeyLeaseRenewDeadline, "10 s", Implemented, "read at start"},
	{KeyLeaseRetryPeriod, "2 s", Implemented, "read at start"},
	{"kubernetes.operator.metrics.histogram.sample.size", "1000", NotApplicable, "Prometheus histograms with fixed buckets, no sampled histograms"},
	{"kubernetes.operator.metrics.reporter.<name>.<parameter>", "", NotApplicable, "no Flink metric reporters: metrics are served in Prometheus format at --metrics-bind-address"},
	{"kubernetes.operator.metrics.scope.k8soperator.resource", "<host>.k8soperator.<namespace>.<name>.resource.<resourcens>.<resourcename>.<resourcetype>", NotApplicable, "metric names are fixed (flinkop_*); the resource is a label"},
	{"kubernetes.operator.metrics.scope.k8soperator.resourcens", "<host>.k8soperator.<namespace>.<name>.namespace.<resourcens>.<resourcetype>", NotApplicable, "metric names are fixed (flinkop_*); the namespace is a label"},
	{"kubernetes.operator.metrics.scope.k8soperator.system", "<host>.k8soperator.<namespace>.<name>.system", NotApplicable, "metric names are fixed (flinkop_*)"},
	{"kubernetes.operator.observer.flink.client.timeout", "", Deprecated, "kubernetes.operator.flink.client.timeout"},
	{KeyProgressCheckInterval, "10 s", Implemented, ""},
	{KeyRestReadyDelay, "10 s", Implemented, ""},
	{"kubernetes.operator.observer.savepoint.trigger.grace-period", "", Deprecated, "kubernetes.operator.savepoint.trigger.grace-period"},
	{KeyPeriodicCheckpoint, "", Implemented, ""},
	{KeyPeriodicSavepoint, "", Implemented, ""},
	{"kubernetes.operator.plugins.listeners.<listener-name>.class", "", NotApplicable, "no Java plugins: the Events (docs/events.md), the status conditions and the flinkop_* metrics report every change"},
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
	{KeySavepointHistoryMaxAgeThreshold, "", Implemented, "operator-wide or per namespace; caps savepoint.history.max.age"},
	{KeySavepointHistoryMaxCount, "10", Implemented, ""},
	{KeySavepointHistoryMaxCountThreshold, "", Implemented, "operator-wide or per namespace; caps savepoint.history.max.count"},
	{"kubernetes.operator.savepoint.trigger.grace-period", "1 min", Ignored, ""},
	{"kubernetes.operator.session.block-on-unmanaged-jobs", "", Deprecated, "kubernetes.operator.session.deletion.block-on-unmanaged-jobs"},
	{KeyBlockOnSessionJobs, "true", Implemented, "read from the session cluster's configuration, and from the session job's when its cluster is being deleted"},
	{KeyBlockOnUnmanagedJobs, "true", Implemented, "only with block-on-session-jobs; jobs listed by the session cluster's REST API (not blocked when it does not answer)"},
	{KeySnapshotAllowedPathPrefixes, "", Own, "where FlinkStateSnapshots may record and dispose of savepoints besides their namespace's state directories ({{namespace}}; * alone: any path); unset: those directories only; from the operator's options only, per namespace too"},
	{KeySnapshotMaxConcurrent, "", Own, "snapshots in flight across the fleet; unset: no bound"},
	{KeySnapshotResources, "true", Implemented, ""},
	{KeyStopOnInformerError, "true", Implemented, "read at start; true: the controllers' caches not filled within 2 min stop the operator, false: they retry for ever (the caches the indexes need are waited for without a bound either way)"},
	{KeyTerminationTimeout, "10 s", Implemented, "read at start; how long reconciles in flight may finish when the operator stops"},
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
	{"metrics.custom-evaluator.<name>.<parameter>", "", NotApplicable, "no Java plugins: a custom evaluator is a Java class"},
	{"metrics.custom-evaluator.<name>.class", "", NotApplicable, "no Java plugins: a custom evaluator is a Java class"},
	{"metrics.custom-evaluators", "", NotApplicable, "no Java plugins: a custom evaluator is a Java class"},
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
	{"scaling.custom-executor.<name>.<parameter>", "", NotApplicable, "no Java plugins: a custom executor is a Java class"},
	{"scaling.custom-executor.<name>.class", "", NotApplicable, "no Java plugins: a custom executor is a Java class"},
	{"scaling.custom-executors", "", NotApplicable, "no Java plugins: a custom executor is a Java class"},
	{"scaling.effectiveness.detection.enabled", "false", Ignored, ""},
	{"scaling.effectiveness.threshold", "0.1", Ignored, ""},
	{"scaling.enabled", "true", Implemented, ""},
	{"scaling.event.interval", "30 min", Ignored, ""},
	{"scaling.parallelism-alignment.mode", "BALANCED", Ignored, ""},
	{"scaling.parallelism-alignment.mode.<name>.<parameter>", "", NotApplicable, "no Java plugins: a custom alignment mode is a Java class"},
	{"scaling.parallelism-alignment.mode.<name>.class", "", NotApplicable, "no Java plugins: a custom alignment mode is a Java class"},
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
