package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flinkop/flinkop/operator/config"
)

func TestReadLeaderElection(t *testing.T) {
	defaults := config.LeaderElection{LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second}
	cases := map[string]struct {
		flat    map[string]string
		want    config.LeaderElection
		wantErr string
	}{
		"Apache's defaults": {flat: nil, want: defaults},
		"enabled with a lease": {
			flat: map[string]string{config.KeyLeaderElection: "true", config.KeyLeaseName: "flink-operator-lease", config.KeyLeaseDuration: "30 s", config.KeyLeaseRenewDeadline: "20 s", config.KeyLeaseRetryPeriod: "5 s"},
			want: config.LeaderElection{Enabled: true, LeaseName: "flink-operator-lease", LeaseDuration: 30 * time.Second, RenewDeadline: 20 * time.Second, RetryPeriod: 5 * time.Second},
		},
		"not a boolean":  {flat: map[string]string{config.KeyLeaderElection: "yes please"}, wantErr: config.KeyLeaderElection},
		"not a duration": {flat: map[string]string{config.KeyLeaseDuration: "NaN"}, wantErr: config.KeyLeaseDuration},
		"renewal slower than the lease": {
			flat: map[string]string{config.KeyLeaseDuration: "10 s", config.KeyLeaseRenewDeadline: "15 s"}, wantErr: "must exceed",
		},
		"retries too slow for the deadline": {
			flat: map[string]string{config.KeyLeaseRenewDeadline: "10 s", config.KeyLeaseRetryPeriod: "9 s"}, wantErr: "1.2 ×",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := config.ReadLeaderElection(tc.flat)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestHealthProbeAddress(t *testing.T) {
	cases := map[string]struct {
		flat    map[string]string
		addr    string
		set     bool
		wantErr bool
	}{
		"neither option":      {addr: ":8085"},
		"Apache's port":       {flat: map[string]string{config.KeyHealthProbePort: "8085"}, addr: ":8085", set: true},
		"another port":        {flat: map[string]string{config.KeyHealthProbePort: "9000"}, addr: ":9000", set: true},
		"disabled":            {flat: map[string]string{config.KeyHealthProbe: "false"}, addr: "0", set: true},
		"a port out of range": {flat: map[string]string{config.KeyHealthProbePort: "70000"}, wantErr: true},
		"not a boolean":       {flat: map[string]string{config.KeyHealthProbe: "maybe"}, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			addr, set, err := config.HealthProbeAddress(tc.flat)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want one: %v", err, tc.wantErr)
			}
			if !tc.wantErr && (addr != tc.addr || set != tc.set) {
				t.Errorf("address %q set %v, want %q %v", addr, set, tc.addr, tc.set)
			}
		})
	}
}
