package harness

import (
	"context"
	"fmt"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// blueGreenPrefix marks the due keys of FlinkBlueGreenDeployments.
const blueGreenPrefix = "bluegreen/"

// BlueGreenKey is the key a FlinkBlueGreenDeployment's reconciles and trace entries go by.
func BlueGreenKey(name string) string { return blueGreenPrefix + name }

// ApplyBlueGreen creates a FlinkBlueGreenDeployment or replaces its spec, as kubectl apply
// would. From then on the world plays the operator's watch of the FlinkDeployments it
// creates (the children) and the garbage collector for them.
func (w *World) ApplyBlueGreen(b *flinkv1beta1.FlinkBlueGreenDeployment) error {
	gen, err := w.applySpec(b.DeepCopy())
	if err != nil {
		return err
	}
	w.templates = true // the operator creates FlinkDeployments: discover looks for them
	w.blueGreens = true
	key := BlueGreenKey(b.Name)
	w.Trace.add(w.Clock.Now(), "spec", key, "applied generation "+fmt.Sprint(gen))
	w.watchEvent(key)
	return nil
}

// DeleteBlueGreen deletes a FlinkBlueGreenDeployment (its children go with it).
func (w *World) DeleteBlueGreen(name string) error {
	b, err := w.GetBlueGreen(name)
	if err != nil {
		return err
	}
	key := BlueGreenKey(name)
	w.Trace.add(w.Clock.Now(), "spec", key, "deleted")
	w.watchEvent(key)
	return w.Client.Delete(context.Background(), b)
}

// GetBlueGreen reads a FlinkBlueGreenDeployment.
func (w *World) GetBlueGreen(name string) (*flinkv1beta1.FlinkBlueGreenDeployment, error) {
	var b flinkv1beta1.FlinkBlueGreenDeployment
	err := w.Client.Get(context.Background(), client.ObjectKey{Namespace: w.Namespace, Name: name}, &b)
	return &b, err
}

// blueGreenParent is the due key of the FlinkBlueGreenDeployment controlling d ("": none).
func blueGreenParent(d *flinkv1beta1.FlinkDeployment) string {
	if ref := metav1.GetControllerOf(d); ref != nil && ref.Kind == "FlinkBlueGreenDeployment" {
		return BlueGreenKey(ref.Name)
	}
	return ""
}

// collectChild plays the garbage collector for a child whose FlinkBlueGreenDeployment is
// gone (or was replaced by another of the same name); it reports whether it deleted d.
func (w *World) collectChild(d *flinkv1beta1.FlinkDeployment) (bool, error) {
	if blueGreenParent(d) == "" || d.DeletionTimestamp != nil {
		return false, nil
	}
	if gone, err := w.controllerGone(d); err != nil || !gone {
		return false, err
	}
	w.Trace.add(w.Clock.Now(), "spec", d.Name, "deleted by the garbage collector: its FlinkBlueGreenDeployment is gone")
	if err := w.Client.Delete(context.Background(), d); client.IgnoreNotFound(err) != nil {
		return false, fmt.Errorf("collect FlinkDeployment %s: %w", d.Name, err)
	}
	return true, nil
}

// collectIngresses plays the garbage collector for the Ingresses of FlinkBlueGreenDeployments
// that are gone.
func (w *World) collectIngresses() error {
	if !w.blueGreens {
		return nil // only a FlinkBlueGreenDeployment's Ingress is collected
	}
	var list networkingv1.IngressList
	if err := w.Client.List(context.Background(), &list, client.InNamespace(w.Namespace)); err != nil {
		return fmt.Errorf("list Ingresses: %w", err)
	}
	for i := range list.Items {
		ing := &list.Items[i]
		ref := metav1.GetControllerOf(ing)
		if ref == nil || ref.Kind != "FlinkBlueGreenDeployment" {
			continue
		}
		gone, err := w.controllerGone(ing)
		if err != nil {
			return err
		}
		if !gone {
			continue
		}
		w.Trace.add(w.Clock.Now(), "spec", BlueGreenKey(ref.Name), "Ingress "+ing.Name+" deleted by the garbage collector")
		if err := w.Client.Delete(context.Background(), ing); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("collect Ingress %s: %w", ing.Name, err)
		}
	}
	return nil
}
