//go:build e2e

package e2e

import (
	"context"
	"strings"
	"testing"
)

// TestProtectedNamespacesRefuseTheOperator: the chart's ValidatingAdmissionPolicy denies the
// operator's ServiceAccount any write of the kinds it renders in kube-system, even with every
// right RBAC can give (impersonated with system:masters: a cluster-wide install's ClusterRole
// would allow it), and leaves its writes in a watched namespace alone.
func TestProtectedNamespacesRefuseTheOperator(t *testing.T) {
	as := []string{"--as", "system:serviceaccount:" + operatorNS + ":flinkop-manager", "--as-group", "system:masters"}
	create := func(ns string) (string, error) {
		args := append([]string{"create", "configmap", "e2e-protected", "-n", ns, "--from-literal=k=v", "--dry-run=server"}, as...)
		return kubectl(context.Background(), args...)
	}
	out, err := create("kube-system")
	if err == nil || !strings.Contains(err.Error(), "protected namespace") {
		t.Fatalf("a ConfigMap create in kube-system as the operator: err %v, output %q; want the policy's denial", err, out)
	}
	step("kube-system refused the operator: %s", strings.TrimSpace(err.Error()))
	if out, err := create(jobNS); err != nil {
		t.Fatalf("a ConfigMap create in %s as the operator was refused: %v: %s", jobNS, err, out)
	}
}
