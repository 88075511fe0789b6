package autoscaler

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flinkop/flinkop/operator/config"
)

func TestParseConfig(t *testing.T) {
	def := Defaults()
	for name, tc := range map[string]struct {
		conf    map[string]string
		want    func(c *Config)
		wantErr string
	}{
		"defaults": {conf: map[string]string{}, want: func(*Config) {}},
		"the new prefix": {
			conf: map[string]string{"job.autoscaler.enabled": "true", "job.autoscaler.metrics.window": "5m"},
			want: func(c *Config) { c.Enabled, c.MetricsWindow = true, 5*time.Minute },
		},
		"the old prefix": {
			conf: map[string]string{"kubernetes.operator.job.autoscaler.enabled": "true", "kubernetes.operator.job.autoscaler.vertex.max-parallelism": "12"},
			want: func(c *Config) { c.Enabled, c.MaxParallelism = true, 12 },
		},
		"the new prefix wins": {
			conf: map[string]string{"kubernetes.operator.job.autoscaler.vertex.max-parallelism": "12", "job.autoscaler.vertex.max-parallelism": "7"},
			want: func(c *Config) { c.MaxParallelism = 7 },
		},
		"the old utilization key": {
			conf: map[string]string{"job.autoscaler.target.utilization": "0.5"},
			want: func(c *Config) { c.TargetUtilization = 0.5 },
		},
		"an explicit band": {
			conf: map[string]string{"job.autoscaler.utilization.min": "0.5", "job.autoscaler.utilization.max": "0.8"},
			want: func(c *Config) { c.UtilizationMin, c.UtilizationMax = 0.5, 0.8 },
		},
		"a band without the target": {conf: map[string]string{"job.autoscaler.utilization.max": "0.6"}, wantErr: "does not hold the target"},
		"excluded vertices": {
			conf: map[string]string{"job.autoscaler.vertex.exclude.ids": "a, b"},
			want: func(c *Config) { c.Excluded = []string{"a", "b"} },
		},
		"an aggregator": {
			conf: map[string]string{"job.autoscaler.metrics.busy-time.aggregator": "avg"},
			want: func(c *Config) { c.BusyAggregator = "AVG" },
		},
		"out of bounds": {conf: map[string]string{
			"job.autoscaler.utilization.target": "2", "job.autoscaler.metrics.window": "1s",
			"job.autoscaler.vertex.max-parallelism": "100000", "job.autoscaler.enabled": "yes please",
		}, wantErr: "job.autoscaler.enabled"},
		"not a number": {conf: map[string]string{"job.autoscaler.scale-down.max-factor": "NaN"}, wantErr: "scale-down.max-factor"},
		"min above max": {
			conf:    map[string]string{"job.autoscaler.vertex.min-parallelism": "8", "job.autoscaler.vertex.max-parallelism": "4"},
			wantErr: "min-parallelism 8 is above",
		},
		"a huge exclusion list": {conf: map[string]string{"job.autoscaler.vertex.exclude.ids": strings.Repeat("a,", 1001)}, wantErr: "at most 1000"},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := ParseConfig(tc.conf, config.ParseDuration)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one naming %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := def
			tc.want(&want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseConfigNamesEveryBadOption(t *testing.T) {
	_, err := ParseConfig(map[string]string{
		"job.autoscaler.utilization.target": "2", "job.autoscaler.metrics.window": "1s", "job.autoscaler.restart.time": "-",
	}, config.ParseDuration)
	for _, key := range []string{"utilization.target", "metrics.window", "restart.time"} {
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("error %v does not name %s", err, key)
		}
	}
}
