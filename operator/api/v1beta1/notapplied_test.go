package v1beta1

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNotAppliedOptions(t *testing.T) {
	got := NotAppliedOptions(map[string]string{
		"kubernetes.jobmanager.owner.reference":          "x",
		"kubernetes.pod-template-file.taskmanager":       "/t.yaml",
		"kubernetes.decorator.hadoop-conf-mount.enabled": "false",
		"kubernetes.jobmanager.labels":                   "a:b", // applied
		"kubernetes.container.image.pull-secrets":        "r",   // applied
		"taskmanager.numberOfTaskSlots":                  "2",
		"kubernetes.taskmanager.entrypoint.args":         "-Dx=y", // native only
	}, false)
	want := []string{
		"kubernetes.decorator.hadoop-conf-mount.enabled (the standalone decorators always run)",
		"kubernetes.jobmanager.owner.reference (the operator owns what it renders)",
		"kubernetes.pod-template-file.taskmanager (the operator renders the pod templates of spec)",
		"kubernetes.taskmanager.entrypoint.args (read by native mode only)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("standalone (-want +got):\n%s", diff)
	}
	native := NotAppliedOptions(map[string]string{"kubernetes.taskmanager.entrypoint.args": "-Dx=y", "kubernetes.entry.path": "/e.sh", "kubernetes.node-name-label": "n"}, true)
	if diff := cmp.Diff([]string{"kubernetes.node-name-label (the resource manager's blocked nodes are not modelled)"}, native); diff != "" {
		t.Errorf("native (-want +got):\n%s", diff)
	}
}
