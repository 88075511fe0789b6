package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flinkop/flinkop/operator/config"
)

// TestHistoryThresholdsCapTheResourcesLimits: the operator's savepoint history thresholds cap
// what a resource asks for, and a resource cannot raise them (its keys are dropped by
// OperatorKeys and CheckResource warns).
func TestHistoryThresholdsCapTheResourcesLimits(t *testing.T) {
	base, err := config.Defaults().With(map[string]string{
		config.KeySavepointHistoryMaxCountThreshold: "3", config.KeySavepointHistoryMaxAgeThreshold: "2 h",
	})
	if err != nil {
		t.Fatal(err)
	}
	resource := map[string]string{
		config.KeySavepointHistoryMaxCount: "20", config.KeySavepointHistoryMaxAge: "3 d",
		config.KeySavepointHistoryMaxCountThreshold: "100", config.KeySavepointHistoryMaxAgeThreshold: "30 d",
	}
	got, err := base.With(config.OperatorKeys(resource))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([2]any{3, 2 * time.Hour}, [2]any{got.SavepointHistoryMaxCount, got.SavepointHistoryMaxAge}); diff != "" {
		t.Errorf("history limits (-want +got):\n%s", diff)
	}
	within, err := base.With(map[string]string{config.KeySavepointHistoryMaxCount: "2"})
	if err != nil || within.SavepointHistoryMaxCount != 2 {
		t.Errorf("a count within the threshold: %d, %v; want 2", within.SavepointHistoryMaxCount, err)
	}
	warned := strings.Join(config.CheckResource(resource), "\n")
	for _, key := range []string{config.KeySavepointHistoryMaxCountThreshold, config.KeySavepointHistoryMaxAgeThreshold} {
		if !strings.Contains(warned, key+" is read from the operator's configuration only") {
			t.Errorf("no warning for %s in %q", key, warned)
		}
	}
	for _, bad := range []string{"0", "-1", "soon"} {
		if _, err := config.Defaults().With(map[string]string{config.KeySavepointHistoryMaxAgeThreshold: bad}); err == nil ||
			!strings.Contains(err.Error(), config.KeySavepointHistoryMaxAgeThreshold) {
			t.Errorf("age threshold %q: %v, want an error naming the key", bad, err)
		}
	}
}

// TestExceptionOptions: the exception.* options shape status.error from the operator's
// configuration only; malformed or out-of-bounds values are refused by name.
func TestExceptionOptions(t *testing.T) {
	got, err := config.Defaults().With(map[string]string{
		config.KeyExceptionFieldMaxLength: "100", config.KeyExceptionStackTrace: "true", config.KeyExceptionStackTraceMaxLength: "50",
		config.KeyExceptionThrowableMaxCount: "3", config.KeyExceptionLabelMapper: "Slot request.*:no-slots,OutOfMemory:oom",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := config.ExceptionOptions{
		FieldMaxLength: 100, StackTrace: true, StackTraceMaxLength: 50, ThrowableMaxCount: 3,
		LabelMapper: "Slot request.*:no-slots,OutOfMemory:oom",
	}
	if diff := cmp.Diff(want, got.Exceptions); diff != "" {
		t.Errorf("exception options (-want +got):\n%s", diff)
	}
	var labels []string
	for _, r := range got.Exceptions.LabelRules() {
		labels = append(labels, r.Pattern.String()+"→"+r.Label)
	}
	if diff := cmp.Diff([]string{"Slot request.*→no-slots", "OutOfMemory→oom"}, labels); diff != "" {
		t.Errorf("label rules (-want +got):\n%s", diff)
	}
	for key, bad := range map[string]string{
		config.KeyExceptionFieldMaxLength: "-1", config.KeyExceptionStackTraceMaxLength: "99999", config.KeyExceptionThrowableMaxCount: "NaN",
		config.KeyExceptionStackTrace: "maybe", config.KeyExceptionLabelMapper: "(unclosed:x",
	} {
		if _, err := config.Defaults().With(map[string]string{key: bad}); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s=%q: %v, want refused by name", key, bad, err)
		}
	}
	if keys := config.OperatorKeys(map[string]string{config.KeyExceptionStackTrace: "true"}); len(keys) != 0 {
		t.Errorf("a resource set %v", keys)
	}
}

// TestRESTTimeoutsAreBounded: a job's cancel and a jar's run hold a reconcile worker while they
// last: their timeouts are refused, by name, above 30 minutes.
func TestRESTTimeoutsAreBounded(t *testing.T) {
	for _, key := range []string{config.KeyFlinkCancelTimeout, config.KeyJobSubmissionTimeout} {
		if _, err := config.Defaults().With(map[string]string{key: "30 min"}); err != nil {
			t.Errorf("%s 30 min: %v", key, err)
		}
		for _, bad := range []string{"31 min", "365 d", "0"} {
			if _, err := config.Defaults().With(map[string]string{key: bad}); err == nil || !strings.Contains(err.Error(), key) {
				t.Errorf("%s %s: %v, want refused by name", key, bad, err)
			}
		}
	}
}
