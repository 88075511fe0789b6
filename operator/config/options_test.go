package config

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flinkop/flinkop/harness/fixtures"
)

func TestWith(t *testing.T) {
	cases := map[string]struct {
		conf    map[string]string
		want    func(*Options)
		wantErr string
	}{
		"no keys keep the defaults": {conf: map[string]string{"taskmanager.numberOfTaskSlots": "2"}, want: func(*Options) {}},
		"durations in Flink notation": {
			conf: map[string]string{KeyReconcileInterval: "30 s", KeyProgressCheckInterval: "5s", KeySavepointHistoryMaxAge: "2d"},
			want: func(o *Options) {
				o.ReconcileInterval, o.ProgressCheckInterval, o.SavepointHistoryMaxAge = 30*time.Second, 5*time.Second, 48*time.Hour
			},
		},
		"booleans, counts and the savepoint format": {
			conf: map[string]string{KeyLastStateFallback: "false", KeySavepointHistoryMaxCount: "3", KeySavepointFormat: "native"},
			want: func(o *Options) {
				o.LastStateFallback, o.SavepointHistoryMaxCount, o.SavepointFormat = false, 3, "NATIVE"
			},
		},
		"malformed values name their key": {
			conf:    map[string]string{KeyReconcileInterval: "soon", KeyLastStateFallback: "maybe"},
			wantErr: "kubernetes.operator.reconcile.interval",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Defaults().With(tc.conf)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("With() error = %v, want one naming %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := Defaults()
			tc.want(&want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("With() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// A resource's options cannot make the operator poll without pause, or overflow a duration.
func TestWithBounds(t *testing.T) {
	for conf, wantErr := range map[string]string{
		KeyReconcileInterval + "=1":                  KeyReconcileInterval,
		KeyProgressCheckInterval + "=500ms":          KeyProgressCheckInterval,
		KeyPeriodicSavepoint + "=1s":                 KeyPeriodicSavepoint,
		KeyFlinkClientTimeout + "=1h":                KeyFlinkClientTimeout,
		KeyReconcileInterval + "=99999999999999999d": "longer than",
		KeyReconcileInterval + "=1s":                 "",
		KeyPeriodicSavepoint + "=0":                  "",
		KeyRestReadyDelay + "=0":                     KeyRestReadyDelay,
		KeyHealthRestartsWindow + "=0":               KeyHealthRestartsWindow,
		KeyRestReadyDelay + "=2 s":                   "",
	} {
		k, v, _ := strings.Cut(conf, "=")
		got, err := Defaults().With(map[string]string{k: v})
		if err != nil && got != Defaults() {
			t.Errorf("%s: an invalid option changed the options: %+v", conf, got)
		}
		switch {
		case wantErr == "" && err != nil:
			t.Errorf("%s: unexpected error %v", conf, err)
		case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
			t.Errorf("%s: err = %v, want one naming %q", conf, err, wantErr)
		}
	}
}

// TestParseDurationIsFlinks holds the operator's parser to the shared table of Flink's grammar
// (fakeflink's parser is held to the same table).
func TestParseDurationIsFlinks(t *testing.T) {
	for _, tc := range fixtures.FlinkDurations {
		got, err := ParseDuration(tc.In)
		if (err == nil) != tc.OK || (tc.OK && got != tc.Want) {
			t.Errorf("ParseDuration(%q) = %v, %v; Flink reads it as %v (accepted: %v)", tc.In, got, err, tc.Want, tc.OK)
		}
	}
	if _, err := ParseDuration("400 d"); err == nil {
		t.Errorf("a duration above %s was accepted", MaxDuration)
	}
}
