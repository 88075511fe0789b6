package config

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestParsePeriodic: an interval or a Quartz cron expression (Apache's two forms), each due
// when its form says, a cron schedule never twice within MinPeriodicSavepoint; what the
// parser underneath cannot honour (years, L, W, #) is refused, not misread.
func TestParsePeriodic(t *testing.T) {
	sat := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC) // a Saturday
	for expr, tc := range map[string]struct {
		want    time.Time // Next(sat)
		wantErr string
	}{
		"10m":                {want: sat.Add(10 * time.Minute)},
		"0":                  {},
		"0 0 * * * ?":        {want: sat.Add(time.Hour)},
		"0 30 10 * * ? *":    {want: sat.Add(30 * time.Minute)},
		"0 0 12 ? * 2-6":     {want: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}, // Quartz 2-6: Monday to Friday
		"0 0 12 ? * MON-FRI": {want: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)},
		"0 0 12 ? * 1":       {want: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}, // Quartz 1: Sunday
		"0 0 12 ? * 7":       {want: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)}, // Quartz 7: Saturday
		"* * * * * ?":        {want: sat.Add(MinPeriodicSavepoint)},
		"-5m":                {wantErr: "neither a duration"},
		"0 0 12 * * ? 2027":  {wantErr: "years are not supported"},
		"0 0 12 L * ?":       {wantErr: "L and W are not supported"},
		"0 0 12 15W * ?":     {wantErr: "L and W are not supported"},
		"0 0 12 ? * 6#3":     {wantErr: "L and # are not supported"},
		"0 0 12 ? * 8":       {wantErr: "not between 1 (Sunday) and 7 (Saturday)"},
		"0 0 12 * * *":       {wantErr: "both a day-of-week AND a day-of-month"},
		"0 0 12 ? * ?":       {wantErr: "both a day-of-week AND a day-of-month"},
		"0 0 12 1 * MON":     {wantErr: "both a day-of-week AND a day-of-month"},
		"1 2 3":              {wantErr: "6 or 7 fields"},
		"every day":          {wantErr: "neither a duration nor a Quartz cron expression"},
		"0 0 12 ? * 2/2":     {want: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)},
		"0 0 0 31 2 ?":       {}, // February 31st never comes
	} {
		t.Run(expr, func(t *testing.T) {
			p, err := ParsePeriodic(expr)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, p.Next(sat)); diff != "" {
				t.Errorf("Next (-want +got):\n%s", diff)
			}
		})
	}
}
