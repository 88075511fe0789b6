package config

import (
	"strings"
	"testing"
)

func TestReconcileParallelism(t *testing.T) {
	cases := map[string]struct {
		flat    map[string]string
		want    int
		wantErr string
	}{
		"unset: Apache's default":      {flat: map[string]string{}, want: DefaultReconcileParallelism},
		"a number":                     {flat: map[string]string{KeyReconcileParallelism: " 16 "}, want: 16},
		"-1: unbounded, up to the cap": {flat: map[string]string{KeyReconcileParallelism: "-1"}, want: MaxReconcileParallelism},
		"zero":                         {flat: map[string]string{KeyReconcileParallelism: "0"}, wantErr: "not between 1 and 1000"},
		"above the cap":                {flat: map[string]string{KeyReconcileParallelism: "100000"}, wantErr: "not between 1 and 1000"},
		"not a number":                 {flat: map[string]string{KeyReconcileParallelism: "many"}, wantErr: "not a number"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ReconcileParallelism(tc.flat)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("got %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}
