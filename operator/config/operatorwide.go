package config

import (
	"maps"
	"slices"
)

// Keys of the savepoint history's caps, operator-wide (and per namespace), as Apache reads them.
const (
	KeySavepointHistoryMaxCountThreshold = "kubernetes.operator.savepoint.history.max.count.threshold"
	KeySavepointHistoryMaxAgeThreshold   = "kubernetes.operator.savepoint.history.max.age.threshold"
)

// operatorWide are the options read from the operator's configuration only (operator-wide
// and per namespace, as Apache reads them from its operator configuration): a resource's
// flinkConfiguration cannot set them, and CheckResource warns when it tries. The Ingress
// policy's keys (IsIngressPolicyKey) are too.
var operatorWide = map[string]bool{
	KeyFlinkClientTimeout: true, KeyFlinkCancelTimeout: true, KeyJobSubmissionTimeout: true,
	KeySavepointHistoryMaxCountThreshold: true, KeySavepointHistoryMaxAgeThreshold: true,
	KeyExceptionFieldMaxLength: true, KeyExceptionLabelMapper: true, KeyExceptionStackTrace: true,
	KeyExceptionStackTraceMaxLength: true, KeyExceptionThrowableMaxCount: true,
	// Read once at start, from the file only.
	KeyTerminationTimeout: true, KeyStopOnInformerError: true, KeyLeaderElection: true, KeyLeaseName: true,
	KeyLeaseDuration: true, KeyLeaseRenewDeadline: true, KeyLeaseRetryPeriod: true, KeyHealthProbe: true, KeyHealthProbePort: true,
	KeyReconcileParallelism: true, KeyDynamicConfig: true, KeyDynamicConfigInterval: true, KeyDynamicNamespaces: true,
	KeyWatchedNamespaces: true, KeyLabelSelector: true, KeySnapshotMaxConcurrent: true,
}

// IsOperatorWideKey reports whether key is read from the operator's configuration only.
func IsOperatorWideKey(key string) bool {
	return operatorWide[key] || IsIngressPolicyKey(key)
}

// CheckResource is Check for a resource's flinkConfiguration: it also warns of each option
// only the operator's configuration sets, which has no effect there.
func CheckResource(conf map[string]string) []string {
	out := Check(conf)
	for _, key := range slices.Sorted(maps.Keys(conf)) {
		if IsOperatorWideKey(key) {
			out = append(out, key+" is read from the operator's configuration only (operator-wide or per namespace); it has no effect in a resource's flinkConfiguration")
		}
	}
	return out
}

// capHistory applies the savepoint history's caps (0: none) to the resource's limits.
func (o *Options) capHistory() {
	if t := o.SavepointHistoryMaxCountThreshold; t > 0 && o.SavepointHistoryMaxCount > t {
		o.SavepointHistoryMaxCount = t
	}
	if t := o.SavepointHistoryMaxAgeThreshold; t > 0 && o.SavepointHistoryMaxAge > t {
		o.SavepointHistoryMaxAge = t
	}
}
