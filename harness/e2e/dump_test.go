//go:build e2e

package e2e

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// dump logs what a failing test needs to be understood without the cluster: the resource,
// the namespace's events, its pods and their logs, and the operator's log.
func dump(t *testing.T, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, args := range [][]string{
		{"-n", jobNS, "get", "flinkdeployments,flinksessionjobs", "-o", "yaml"},
		{"-n", jobNS, "get", "events", "--sort-by=.lastTimestamp"},
		{"-n", jobNS, "get", "deployments,pods,services,configmaps", "-o", "wide", "-l", "app=" + name},
		{"-n", jobNS, "logs", "-l", "app=" + name, "--all-containers", "--prefix", "--tail=80"},
		{"-n", operatorNS, "logs", "deployment/flinkop-manager", "--tail=300"},
	} {
		out, err := kubectl(ctx, args...)
		if err != nil {
			t.Logf("dump: %v", err)
		}
		t.Logf("--- kubectl %v\n%s", args, out)
	}
}

// names lists "Kind/name" of every item of list.
func names(kind string, list client.ObjectList) []string {
	items, err := meta.ExtractList(list)
	if err != nil {
		return []string{kind + ": " + err.Error()}
	}
	var out []string
	for _, o := range items {
		if m, err := meta.Accessor(o); err == nil {
			out = append(out, kind+"/"+m.GetName())
		}
	}
	return out
}
