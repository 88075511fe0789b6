package harness

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
)

// nothingLeft: after deletion no object the resource owned remains (invariant 4).
func (c *Checker) nothingLeft(name string) []string {
	ctx := context.Background()
	sel := client.MatchingLabels{act.LabelApp: name}
	var deps appsv1.DeploymentList
	var svcs corev1.ServiceList
	var cms corev1.ConfigMapList
	_ = c.w.Client.List(ctx, &deps, client.InNamespace(c.w.Namespace), sel)
	_ = c.w.Client.List(ctx, &svcs, client.InNamespace(c.w.Namespace), sel)
	_ = c.w.Client.List(ctx, &cms, client.InNamespace(c.w.Namespace), sel)
	var left []string
	for _, d := range deps.Items {
		if !c.isForeign(&d) {
			left = append(left, "deployment/"+d.Name)
		}
	}
	for _, s := range svcs.Items {
		if !c.isForeign(&s) {
			left = append(left, "service/"+s.Name)
		}
	}
	for _, m := range cms.Items {
		if !c.isForeign(&m) {
			left = append(left, "configmap/"+m.Name)
		}
	}
	if len(left) > 0 {
		return []string{fmt.Sprintf("%s: deleted, but %v remain (invariant 4)", name, left)}
	}
	return nil
}
