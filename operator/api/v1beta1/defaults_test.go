package v1beta1

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func withDefaultsOf(kv ...string) func(*FlinkDeployment) {
	return func(d *FlinkDeployment) {
		d.Spec.Defaults = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			d.Spec.Defaults[kv[i]] = kv[i+1]
		}
	}
}

// TestConfWithDefaults: the operator's defaults fill what the spec leaves unset; the spec's
// keys win, also when it sets another spelling of the same option.
func TestConfWithDefaults(t *testing.T) {
	for name, tc := range map[string]struct {
		d    *FlinkDeployment
		want map[string]string
	}{
		"no defaults": {app(), map[string]string{"taskmanager.numberOfTaskSlots": "2"}},
		"defaults fill, the spec wins": {
			app(withDefaultsOf("taskmanager.numberOfTaskSlots", "8", "pipeline.name", "p")),
			map[string]string{"taskmanager.numberOfTaskSlots": "2", "pipeline.name": "p"},
		},
		"another spelling set in the spec": {
			app(withConf(ConfigSavepointsDirV2, "s3://mine", ConfigHALegacy, "NONE"),
				withDefaultsOf(ConfigSavepointsDir, "s3://op", ConfigHAType, "kubernetes", ConfigCheckpointsDirV2, "s3://cp")),
			map[string]string{"taskmanager.numberOfTaskSlots": "2", ConfigSavepointsDirV2: "s3://mine", ConfigHALegacy: "NONE", ConfigCheckpointsDirV2: "s3://cp"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := tc.d.Spec.Conf()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Conf (-want +got):\n%s", diff)
			}
		})
	}
}

// TestValidateReadsDefaults: the rules that read the configuration read the operator's
// defaults too (a savepoint upgrade with the operator's savepoint directory, last-state with
// its high availability), but a default's key is not the tenant's to be refused for.
func TestValidateReadsDefaults(t *testing.T) {
	for name, tc := range map[string]struct {
		d        *FlinkDeployment
		wantErrs int
	}{
		"savepoint without a directory":     {app(withMode(UpgradeModeSavepoint)), 1},
		"savepoint with the operator's":     {app(withMode(UpgradeModeSavepoint), withDefaultsOf(ConfigSavepointsDir, "s3://op")), 0},
		"last-state with the operator's HA": {app(withMode(UpgradeModeLastState), withDefaultsOf(append(haConf, ConfigCheckpointsDir, "s3://cp")...)), 0},
		"a default the spec may not set":    {app(withDefaultsOf("kubernetes.cluster-id", "x")), 0},
	} {
		t.Run(name, func(t *testing.T) {
			if errs := tc.d.Validate(); len(errs) != tc.wantErrs {
				t.Errorf("Validate() = %v, want %d error(s)", errs, tc.wantErrs)
			}
		})
	}
}
