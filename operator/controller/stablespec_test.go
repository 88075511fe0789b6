package controller

import (
	"strings"
	"testing"
	"unsafe"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// TestStableSpecShared: a FlinkDeployment whose last stable spec is its last reconciled spec
// is cached with one copy of that JSON (through the transform CacheOptions gives the kind); a
// different stable spec stays its own.
func TestStableSpecShared(t *testing.T) {
	for name, tc := range map[string]struct {
		stable string
		shared bool
	}{
		"stable is the reconciled spec": {stable: `{"spec":{"image":"flink:1.20"}}`, shared: true},
		"stable is an older spec":       {stable: `{"spec":{"image":"flink:1.19"}}`},
	} {
		t.Run(name, func(t *testing.T) {
			d := &flinkv1beta1.FlinkDeployment{}
			d.Status.ReconciliationStatus.LastReconciledSpec = strings.Clone(`{"spec":{"image":"flink:1.20"}}`)
			d.Status.ReconciliationStatus.LastStableSpec = strings.Clone(tc.stable)
			SlimForCache(d)
			rs := d.Status.ReconciliationStatus
			if rs.LastStableSpec != tc.stable {
				t.Fatalf("last stable spec became %q", rs.LastStableSpec)
			}
			if got := unsafe.StringData(rs.LastStableSpec) == unsafe.StringData(rs.LastReconciledSpec); got != tc.shared {
				t.Errorf("shared: %v, want %v", got, tc.shared)
			}
		})
	}
}
