package workload_test

import (
	"testing"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/fakeflink/workload"
)

// The schedules docs/fakeflink.md shows parse with Flink's duration syntax (30min, 1d).
func TestDocumentedSchedules(t *testing.T) {
	for _, s := range []string{
		"constant:1000", "steps:0s=1000, 30min=5000, 2h=1000",
		"sine:base=1000,amplitude=800,period=1d", "bursts:base=1000,peak=8000,every=1h,length=5min",
	} {
		if _, err := workload.ParseSchedule(s, fakeflink.ParseDuration); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
}
