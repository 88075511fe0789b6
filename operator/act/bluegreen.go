package act

import (
	"context"
	"fmt"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/bluegreen"
	"github.com/flinkop/flinkop/operator/flink"
)

// BlueGreenFlinkAPI is what a blue/green switch needs of a child's JobManager.
type BlueGreenFlinkAPI interface {
	TriggerSavepoint(ctx context.Context, jobID string, req flink.SavepointRequest) (string, error)
}

// BlueGreenExecutor carries out blue/green actions: it writes only the resource's own children
// (FlinkDeployments it controls), and triggers savepoints on their JobManagers.
type BlueGreenExecutor struct {
	// Client reads (through the cache) and writes Kubernetes objects.
	Client client.Client
	// Reader reads past the cache (nil: Client): an Ingress create that finds its name taken
	// reads the object there, to tell the resource's own from another's.
	Reader client.Reader
	// Flink returns the REST client of a child's JobManager.
	Flink func(d *flinkv1beta1.FlinkDeployment) BlueGreenFlinkAPI
}

// Execute carries out a for bg.
func (e *BlueGreenExecutor) Execute(ctx context.Context, bg *flinkv1beta1.FlinkBlueGreenDeployment, a bluegreen.Action) error {
	switch a.Kind {
	case bluegreen.ActDeploy:
		return e.deploy(ctx, BlueGreenChild(bg, a.Color, *a.Spec))
	case bluegreen.ActDelete:
		child := &flinkv1beta1.FlinkDeployment{}
		child.Namespace, child.Name = bg.Namespace, a.Color.ChildName(bg.Name)
		return deleteOwned(ctx, e.Client, e.Reader, child, bg.UID)
	case bluegreen.ActApplyIngress:
		return (&Executor{Client: e.Client, Reader: e.Reader}).apply(ctx, RenderBlueGreenIngress(bg, a.Color))
	case bluegreen.ActDeleteIngress:
		ing := &networkingv1.Ingress{}
		ing.Namespace, ing.Name = bg.Namespace, IngressName(bg.Name)
		return deleteOwned(ctx, e.Client, e.Reader, ing, bg.UID)
	case bluegreen.ActTriggerSavepoint:
		child := &flinkv1beta1.FlinkDeployment{}
		key := client.ObjectKey{Namespace: bg.Namespace, Name: a.Color.ChildName(bg.Name)}
		if err := e.Client.Get(ctx, key, child); err != nil {
			return wrap("get "+describe(child), err)
		}
		if err := checkControlled(child, bg.UID); err != nil {
			return err
		}
		_, err := e.Flink(child).TriggerSavepoint(ctx, a.JobID, flink.SavepointRequest{TargetDirectory: a.TargetDirectory, TriggerID: a.TriggerID})
		return wrap("trigger savepoint of "+child.Name, err)
	}
	return nil
}

// deploy creates the child, or replaces the spec and colour label of the one bg controls
// (other labels, annotations and the status stay); one that already has them is not written.
// The child is read past the cache: its own controller writes its status all the time, and an
// update from a cached copy behind those writes would only meet a conflict. Deploys are rare
// (a switch, a patch), so the read costs little.
func (e *BlueGreenExecutor) deploy(ctx context.Context, want *flinkv1beta1.FlinkDeployment) error {
	reader := e.Reader
	if reader == nil {
		reader = e.Client
	}
	var cur flinkv1beta1.FlinkDeployment
	err := reader.Get(ctx, client.ObjectKeyFromObject(want), &cur)
	if apierrors.IsNotFound(err) {
		return wrap("create "+describe(want), e.Client.Create(ctx, want))
	}
	if err != nil {
		return wrap("get "+describe(want), err)
	}
	if err := checkControlled(&cur, controllerUID(want)); err != nil {
		return err
	}
	label := want.Labels[flinkv1beta1.BlueGreenTypeLabel]
	if cur.DeletionTimestamp != nil {
		return fmt.Errorf("%s is being deleted", describe(&cur))
	}
	if cur.Labels[flinkv1beta1.BlueGreenTypeLabel] == label && bluegreen.SameSpec(cur.Spec, want.Spec) {
		return nil
	}
	cur.Spec = want.Spec
	if cur.Labels == nil {
		cur.Labels = map[string]string{}
	}
	cur.Labels[flinkv1beta1.BlueGreenTypeLabel] = label
	return wrap("update "+describe(&cur), e.Client.Update(ctx, &cur))
}

// BlueGreenChild renders child c of bg with spec: named <bg>-<colour>, labelled with its
// colour, and controlled by bg (blocking bg's deletion until it is gone, so that deleting bg
// in the foreground waits for both children).
func BlueGreenChild(bg *flinkv1beta1.FlinkBlueGreenDeployment, c flinkv1beta1.BlueGreenColor, spec flinkv1beta1.FlinkDeploymentSpec) *flinkv1beta1.FlinkDeployment {
	return &flinkv1beta1.FlinkDeployment{
		ObjectMeta: metav1.ObjectMeta{
			Name: c.ChildName(bg.Name), Namespace: bg.Namespace,
			Labels:          map[string]string{flinkv1beta1.BlueGreenTypeLabel: string(c)},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(bg, flinkv1beta1.GroupVersion.WithKind("FlinkBlueGreenDeployment"))},
		},
		Spec: spec,
	}
}
