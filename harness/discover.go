package harness

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/cron"
)

// discover plays the operator's watches on the FlinkDeployments the operator itself changes:
// a run or child it created is enqueued, one it deleted or whose spec it changed is reconciled
// at once, and a change enqueues its cron template or FlinkBlueGreenDeployment; it also plays the garbage collector
// for the children of a FlinkBlueGreenDeployment that is gone. Only cron templates and
// blue/green deployments make the operator create FlinkDeployments, so a world without one
// skips the listing.
func (w *World) discover() error {
	if !w.templates {
		return nil
	}
	var list flinkv1beta1.FlinkDeploymentList
	if err := w.Client.List(context.Background(), &list, client.InNamespace(w.Namespace)); err != nil {
		return fmt.Errorf("list FlinkDeployments: %w", err)
	}
	if w.seen == nil {
		w.seen, w.gens = map[string]string{}, map[string]int64{}
	}
	now := w.Clock.Now()
	for _, d := range list.Items {
		if _, known := w.due[d.Name]; !known {
			w.Trace.add(now, "spec", d.Name, "created by the operator")
			w.due[d.Name] = now
		}
		template := d.Labels[cron.LabelTemplate]
		if template == "" {
			template = blueGreenParent(&d)
		}
		if collected, err := w.collectChild(&d); err != nil || collected {
			w.due[d.Name] = now
			if err != nil {
				return err
			}
			continue
		}
		if template == "" || w.seen[d.Name] == d.ResourceVersion {
			continue
		}
		w.seen[d.Name] = d.ResourceVersion
		if g, ok := w.gens[d.Name]; d.DeletionTimestamp != nil || ok && g != d.Generation {
			w.due[d.Name] = now // deleted, or its spec changed (a blue/green patch): its watch tells
		}
		w.gens[d.Name] = d.Generation
		if at, ok := w.due[template]; ok && at.After(now) {
			w.due[template] = now
		}
	}
	return w.collectIngresses()
}
