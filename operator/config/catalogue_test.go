package config_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/autoscaler"
	"github.com/flinkop/flinkop/operator/config"
)

func keys(list []config.Option) []string {
	out := make([]string, len(list))
	for i, o := range list {
		out[i] = o.Key
	}
	return out
}

// TestCatalogueIsSortedAndUnique: Lookup searches the lists by halves.
func TestCatalogueIsSortedAndUnique(t *testing.T) {
	for name, list := range map[string][]config.Option{"operator": config.OperatorOptions, "autoscaler": config.AutoscalerOptions} {
		k := keys(list)
		if !slices.IsSorted(k) || len(slices.Compact(slices.Clone(k))) != len(k) {
			t.Errorf("%s options are not sorted and unique", name)
		}
	}
}

// TestEveryOptionReadIsCatalogued: each key the operator reads is listed as read.
func TestEveryOptionReadIsCatalogued(t *testing.T) {
	read := []string{
		config.KeyReconcileInterval, config.KeyProgressCheckInterval, config.KeyRestReadyDelay,
		config.KeySavepointHistoryMaxCount, config.KeySavepointHistoryMaxAge, config.KeyLastStateFallback,
		config.KeyLastStateMaxCheckpointAge, config.KeySavepointOnDeletion, config.KeySavepointFormat,
		config.KeyDeploymentReadyTimeout, config.KeyRollbackEnabled, config.KeyJMDeploymentRecovery,
		config.KeyPeriodicSavepoint, config.KeyPeriodicCheckpoint, config.KeyFlinkClientTimeout,
		config.KeyRestartFailed, config.KeySavepointCleanup, config.KeySnapshotResources, config.KeyHealthCheck,
		config.KeyHealthRestartsThreshold, config.KeyHealthRestartsWindow, config.KeyHealthCheckpoints,
		config.KeyHealthCheckpointsWindow, config.KeyReconcileParallelism, config.KeySnapshotMaxConcurrent,
		config.KeySnapshotAllowedPathPrefixes,
		config.KeyDynamicConfig, config.KeyDynamicConfigInterval, config.NamespacePrefix + "ns.kubernetes.operator.x",
		config.KeyCanaryTimeout, config.KeyExceptionEventsLimit, config.KeyExceptionStackLines,
		config.KeyWatchedNamespaces, config.KeyLabelSelector, config.KeyDynamicNamespaces,
		config.KeyIngressAllowedHosts, config.KeyIngressAllowWildcardHosts, config.KeyIngressAllowedAnnotations,
		config.KeyLeaderElection, config.KeyLeaseName, config.KeyLeaseDuration, config.KeyLeaseRenewDeadline,
		config.KeyLeaseRetryPeriod, config.KeyHealthProbe, config.KeyHealthProbePort, config.KeyJMStartupProbe,
		flinkv1beta1.BlueGreenAbortGracePeriod, flinkv1beta1.BlueGreenRescheduleInterval, flinkv1beta1.BlueGreenDeletionDelay,
	}
	for _, k := range []string{
		autoscaler.KeyEnabled, autoscaler.KeyScalingEnabled, autoscaler.KeyMetricsWindow, autoscaler.KeyStabilization,
		autoscaler.KeyTargetUtilization, autoscaler.KeyTargetUtilizationOld, autoscaler.KeyUtilizationBoundary,
		autoscaler.KeyUtilizationMin, autoscaler.KeyUtilizationMax, autoscaler.KeyScaleDownInterval,
		autoscaler.KeyMinParallelism, autoscaler.KeyMaxParallelism, autoscaler.KeyMaxScaleDownFactor,
		autoscaler.KeyMaxScaleUpFactor, autoscaler.KeyCatchUpDuration, autoscaler.KeyRestartTime,
		autoscaler.KeyExcludedVertices, autoscaler.KeyHistoryMaxCount, autoscaler.KeyHistoryMaxAge,
		autoscaler.KeyBusyTimeAggregator, autoscaler.KeyBacklogLagThreshold,
	} {
		read = append(read, autoscaler.Prefix+k, autoscaler.FallbackPrefix+k)
	}
	for _, k := range read {
		if o, ok := config.Lookup(k); !ok || (o.Support != config.Implemented && o.Support != config.Own) {
			t.Errorf("%s is read but catalogued as %+v (found: %v)", k, o, ok)
		}
	}
}

// TestImplementedDefaultsAreApaches: setting an implemented option to the Apache operator's
// default changes nothing, unless its Note says how this operator's default differs.
func TestImplementedDefaultsAreApaches(t *testing.T) {
	for _, o := range config.OperatorOptions {
		if o.Support != config.Implemented || o.Default == "" || o.Note != "" {
			continue
		}
		got, err := config.Defaults().With(map[string]string{o.Key: o.Default})
		if err != nil {
			t.Errorf("%s: Apache's default %q is refused: %v", o.Key, o.Default, err)
			continue
		}
		if diff := cmp.Diff(config.Defaults(), got); diff != "" {
			t.Errorf("%s: Apache's default %q differs from this operator's (-ours +Apache's):\n%s", o.Key, o.Default, diff)
		}
	}
	for _, o := range config.AutoscalerOptions {
		if o.Support != config.Implemented || o.Default == "" || o.Note != "" {
			continue
		}
		got, err := autoscaler.ParseConfig(map[string]string{autoscaler.Prefix + o.Key: o.Default}, config.ParseDuration)
		if err != nil {
			t.Errorf("%s: Apache's default %q is refused: %v", o.Key, o.Default, err)
			continue
		}
		if diff := cmp.Diff(autoscaler.Defaults(), got); diff != "" {
			t.Errorf("%s: Apache's default %q differs from this operator's (-ours +Apache's):\n%s", o.Key, o.Default, diff)
		}
	}
}

func TestCheck(t *testing.T) {
	for name, tc := range map[string]struct {
		conf map[string]string
		want []string
	}{
		"known, pattern and Flink keys": {conf: map[string]string{
			config.KeyReconcileInterval: "1 min", "kubernetes.operator.leader-election.enabled": "true",
			"kubernetes.operator.default-configuration.namespace.team-a.kubernetes.operator.reconcile.interval": "2 min",
			"job.autoscaler.enabled": "true", "kubernetes.operator.job.autoscaler.metrics.window": "5 min",
			"taskmanager.numberOfTaskSlots": "2", "kubernetes.operator": "x-outside-the-prefix",
		}},
		"not applicable": {
			conf: map[string]string{"kubernetes.operator.metrics.reporter.prom.port": "9999", "job.autoscaler.metrics.custom-evaluator.x.class": "X"},
			want: []string{
				"job.autoscaler.metrics.custom-evaluator.x.class is not applicable here (no Java plugins: a custom evaluator is a Java class); it has no effect",
				"kubernetes.operator.metrics.reporter.prom.port is not applicable here (no Flink metric reporters: metrics are served in Prometheus format at --metrics-bind-address); it has no effect",
			},
		},
		"typos": {
			conf: map[string]string{
				"kubernetes.operator.savepoint.histroy.max.count":                                                    "3",
				"kubernetes.operator.job.autoscaler.enabeld":                                                         "true",
				"job.autoscaler.metric.window":                                                                       "5 min",
				"kubernetes.operator.something.else.entirely":                                                        "1",
				"kubernetes.operator.default-configuration.namespace.team-a.kubernetes.operator.reconcile.intervall": "1 min",
			},
			want: []string{
				"job.autoscaler.metric.window is not an option of the Flink operator (did you mean job.autoscaler.metrics.window?); it has no effect",
				"kubernetes.operator.default-configuration.namespace.team-a.kubernetes.operator.reconcile.intervall is not an option of the Flink operator (did you mean kubernetes.operator.default-configuration.namespace.team-a.kubernetes.operator.reconcile.interval?); it has no effect",
				"kubernetes.operator.job.autoscaler.enabeld is not an option of the Flink operator (did you mean kubernetes.operator.job.autoscaler.enabled?); it has no effect",
				"kubernetes.operator.savepoint.histroy.max.count is not an option of the Flink operator (did you mean kubernetes.operator.savepoint.history.max.count?); it has no effect",
				"kubernetes.operator.something.else.entirely is not an option of the Flink operator; it has no effect",
			},
		},
		"deprecated name": {
			conf: map[string]string{"kubernetes.operator.reconciler.reschedule.interval": "1 min"},
			want: []string{"kubernetes.operator.reconciler.reschedule.interval is an older name of kubernetes.operator.reconcile.interval; this operator reads only the current name, so it has no effect"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, config.Check(tc.conf)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLookupNamesTheListedKey: a key under a pattern finds the pattern's option.
func TestLookupNamesTheListedKey(t *testing.T) {
	o, ok := config.Lookup("kubernetes.operator.plugins.listeners.audit.class")
	if !ok || !strings.Contains(o.Key, "<listener-name>") {
		t.Errorf("Lookup = %+v, %v; want the plugins.listeners pattern", o, ok)
	}
}

// TestCheckOperatorFile: Check on the operator's options file: autoscaler options there are
// defaults like Flink's (no warning); a typo under a namespace's or a Flink version's scope is
// reported with its scope.
func TestCheckOperatorFile(t *testing.T) {
	got := config.Check(map[string]string{
		"job.autoscaler.enabled": "true", config.KeyReconcileInterval: "1 min",
		config.NamespacePrefix + "team-a.kubernetes.operator.job.autoscaler.enabled": "true",
		config.VersionPrefix + "v1_20.kubernetes.operator.reconcile.intervall":       "1 min",
	})
	want := []string{
		"kubernetes.operator.default-configuration.flink-version.v1_20.kubernetes.operator.reconcile.intervall is not an option of the Flink operator (did you mean kubernetes.operator.default-configuration.flink-version.v1_20.kubernetes.operator.reconcile.interval?); it has no effect",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Check (-want +got):\n%s", diff)
	}
}
