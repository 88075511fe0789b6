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
	})
	want := []string{
		"kubernetes.decorator.hadoop-conf-mount.enabled (the standalone decorators always run)",
		"kubernetes.jobmanager.owner.reference (the operator owns what it renders)",
		"kubernetes.pod-template-file.taskmanager (the operator renders the pod templates of spec)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
