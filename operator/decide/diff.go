package decide

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// DiffType classifies a spec change, from least to most disruptive (Apache's order).
type DiffType int

// The diff types.
const (
	// DiffIgnore changes nothing that runs (nonces, upgrade mode, operator options, …).
	DiffIgnore DiffType = iota
	// DiffScale changes only the scale (TaskManager replicas, parallelism in standalone mode).
	DiffScale
	// DiffUpgrade needs the cluster and job redeployed.
	DiffUpgrade
	// DiffSavepointRedeploy redeploys from initialSavepointPath, discarding current state.
	DiffSavepointRedeploy
)

func (t DiffType) String() string {
	return [...]string{"IGNORE", "SCALE", "UPGRADE", "SAVEPOINT_REDEPLOY"}[t]
}

// ignoredJobFields change nothing that runs.
var ignoredJobFields = []string{
	"upgradeMode", "savepointTriggerNonce", "checkpointTriggerNonce", "initialSavepointPath", "autoscalerResetNonce",
}

// Diff classifies the change from old to new and names the changed fields
// ("job.parallelism", "flinkConfiguration.state.savepoints.dir", …), sorted.
func Diff(old, new flinkv1beta1.FlinkDeploymentSpec) (DiffType, []string) {
	changed := changedFields(deploymentFields(old), deploymentFields(new))
	worst := DiffIgnore
	for _, f := range changed {
		worst = max(worst, classify(f, new))
	}
	return worst, changed
}

// DiffSessionJob classifies a FlinkSessionJob spec change like Diff: every change of the job
// or its configuration needs the job resubmitted (restartNonce included), except the fields
// that run nothing.
func DiffSessionJob(old, new flinkv1beta1.FlinkSessionJobSpec) (DiffType, []string) {
	changed := changedFields(sessionJobFields(old), sessionJobFields(new))
	worst := DiffIgnore
	for _, f := range changed {
		worst = max(worst, classifySessionJob(f))
	}
	return worst, changed
}

func classifySessionJob(field string) DiffType {
	switch {
	case field == "job.savepointRedeployNonce":
		return DiffSavepointRedeploy
	case strings.HasPrefix(field, "flinkConfiguration.kubernetes.operator."), strings.HasPrefix(field, "flinkConfiguration.job.autoscaler."):
		return DiffIgnore
	case strings.HasPrefix(field, "job.") && slices.Contains(ignoredJobFields, strings.TrimPrefix(field, "job.")):
		return DiffIgnore
	}
	return DiffUpgrade
}

func changedFields(a, b map[string]any) []string {
	var changed []string
	for _, k := range slices.Sorted(maps.Keys(mergeKeys(a, b))) {
		if !reflect.DeepEqual(a[k], b[k]) {
			changed = append(changed, k)
		}
	}
	return changed
}

func classify(field string, spec flinkv1beta1.FlinkDeploymentSpec) DiffType {
	switch {
	case field == "job.savepointRedeployNonce":
		return DiffSavepointRedeploy
	case strings.HasPrefix(field, "flinkConfiguration.kubernetes.operator."), strings.HasPrefix(field, "flinkConfiguration.job.autoscaler."),
		field == "ingress" || strings.HasPrefix(field, "ingress."):
		return DiffIgnore
	case field == "flinkConfiguration.parallelism.default" && spec.Job != nil && spec.Job.Parallelism != nil:
		return DiffIgnore // job.parallelism is what the job runs with
	case strings.HasPrefix(field, "job.") && slices.Contains(ignoredJobFields, strings.TrimPrefix(field, "job.")):
		return DiffIgnore
	case field == "taskManager.replicas" && !spec.Native(), field == "job.parallelism" && !spec.Native(),
		field == "flinkConfiguration."+KeyParallelismOverrides:
		return DiffScale
	}
	return DiffUpgrade
}

// deploymentFields is Diff's view of a FlinkDeployment spec (see specFields).
func deploymentFields(spec flinkv1beta1.FlinkDeploymentSpec) map[string]any {
	conf := spec.FlinkConfiguration
	spec.FlinkConfiguration = nil
	return specFields(spec, conf)
}

// sessionJobFields is DiffSessionJob's view of a FlinkSessionJob spec (see specFields).
func sessionJobFields(spec flinkv1beta1.FlinkSessionJobSpec) map[string]any {
	conf := spec.FlinkConfiguration
	spec.FlinkConfiguration = nil
	return specFields(spec, conf)
}

// specFields flattens a spec (without its configuration) to field path → value;
// flinkConfiguration is compared by its flattened keys, so the same setting written flat or
// nested is no change.
func specFields(s any, fc flinkv1beta1.FlinkConfiguration) map[string]any {
	conf, _ := fc.Flatten()
	raw, _ := json.Marshal(s)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	out := map[string]any{}
	flattenFields(out, "", m)
	for k, v := range conf {
		out["flinkConfiguration."+k] = v
	}
	return out
}

// flattenFields descends into job, jobManager and taskManager so their fields are named one
// by one; everything else is compared whole.
func flattenFields(out map[string]any, prefix string, m map[string]any) {
	for k, v := range m {
		sub, isMap := v.(map[string]any)
		if isMap && len(sub) == 0 {
			continue // an empty struct is no setting
		}
		if isMap && prefix == "" && (k == "job" || k == "jobManager" || k == "taskManager") {
			flattenFields(out, k+".", sub)
			continue
		}
		out[prefix+k] = v
	}
}

func mergeKeys(a, b map[string]any) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}
