package config

import (
	"fmt"
	"strconv"
	"strings"
)

// KeyReconcileParallelism is the operator-wide number of resources reconciled at once (the
// Apache operator's name); a resource's flinkConfiguration cannot set it.
const KeyReconcileParallelism = "kubernetes.operator.reconcile.parallelism"

const (
	// DefaultReconcileParallelism is the Apache operator's default.
	DefaultReconcileParallelism = 200
	// MaxReconcileParallelism is what -1 ("unbounded" in the Apache operator) means here: one
	// reconcile worker is one goroutine, idle ones cost memory, and more workers than this
	// gain nothing once each waits for a bounded REST call.
	MaxReconcileParallelism = 1000
)

// ReconcileParallelism reads KeyReconcileParallelism from the operator's flat options: 1 to
// MaxReconcileParallelism, -1 for MaxReconcileParallelism, DefaultReconcileParallelism when
// unset.
func ReconcileParallelism(flat map[string]string) (int, error) {
	v, ok := flat[KeyReconcileParallelism]
	if !ok {
		return DefaultReconcileParallelism, nil
	}
	return ParseReconcileParallelism(v)
}

// ParseReconcileParallelism reads one value of KeyReconcileParallelism (see
// ReconcileParallelism).
func ParseReconcileParallelism(v string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	switch {
	case err != nil:
		return 0, fmt.Errorf("%s: %q is not a number", KeyReconcileParallelism, v)
	case n == -1:
		return MaxReconcileParallelism, nil
	case n < 1 || n > MaxReconcileParallelism:
		return 0, fmt.Errorf("%s: %d is not between 1 and %d (or -1 for %d)", KeyReconcileParallelism, n, MaxReconcileParallelism, MaxReconcileParallelism)
	}
	return n, nil
}

// KeySnapshotMaxConcurrent is the operator-wide bound on snapshots in flight (Flinkop's key; a
// resource's flinkConfiguration cannot set it): a periodic savepoint or checkpoint starts
// only while fewer are in flight across the fleet. 0, the default, sets no bound.
const KeySnapshotMaxConcurrent = "kubernetes.operator.snapshot.max-concurrent"

// SnapshotMaxConcurrent reads KeySnapshotMaxConcurrent from the operator's flat options: 0
// (no bound, also when unset) or more.
func SnapshotMaxConcurrent(flat map[string]string) (int, error) {
	v, ok := flat[KeySnapshotMaxConcurrent]
	if !ok {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s: %q is not a number of at least 0 (0: no bound)", KeySnapshotMaxConcurrent, v)
	}
	return n, nil
}
