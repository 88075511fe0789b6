package act

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
	"github.com/flinkop/flinkop/operator/flink"
)

// FlinkAPI is what executing actions needs from a JobManager's REST API.
type FlinkAPI interface {
	CancelJob(ctx context.Context, jobID string) error
	StopWithSavepoint(ctx context.Context, jobID string, req flink.StopRequest) (string, error)
	TriggerSavepoint(ctx context.Context, jobID string, req flink.SavepointRequest) (string, error)
	TriggerCheckpoint(ctx context.Context, jobID, checkpointType, triggerID string) (string, error)
	DisposeSavepoint(ctx context.Context, path string) (string, error)
	ResourceRequirements(ctx context.Context, jobID string) (flink.ResourceRequirements, error)
	SetResourceRequirements(ctx context.Context, jobID string, req flink.ResourceRequirements) error
}

// Executor carries out decide's actions.
type Executor struct {
	// Client writes Kubernetes objects.
	Client client.Client
	// Flink returns the REST client of a deployment's JobManager.
	Flink func(d *flinkv1beta1.FlinkDeployment) FlinkAPI
	// HASelector selects a deployment's HA ConfigMaps.
	HASelector func(d *flinkv1beta1.FlinkDeployment) client.MatchingLabels
	// Reader reads past the client's cache (nil: Client). The operator's cache holds only
	// labelled objects, so a create that finds its name taken reads the object here to tell
	// the resource's own object (its labels removed) from another's.
	Reader client.Reader
	// Lister lists Pods and ConfigMaps by app label (through the cache's index when it
	// has one).
	Lister AppLister
	// ServiceSlots bound the Service creates that allocate a cluster IP (nil: no bound).
	ServiceSlots *ServiceSlots
}

// Execute performs one action. An error means it did not (fully) happen; retrying is safe.
func (e *Executor) Execute(ctx context.Context, d *flinkv1beta1.FlinkDeployment, a decide.Action) error {
	switch a.Kind {
	case decide.ActNone:
		return nil
	case decide.ActDeploy:
		return e.deploy(ctx, d, a.Deploy)
	case decide.ActDeleteCluster:
		return e.deleteCluster(ctx, d, a.DeleteHA)
	case decide.ActDeleteAll:
		return e.deleteAll(ctx, d)
	case decide.ActCancelJob:
		err := e.Flink(d).CancelJob(ctx, a.JobID)
		if flink.IsConflict(err) || flink.IsNotFound(err) {
			return nil // already ended, or gone with its JobManager
		}
		return wrap("cancel job", err)
	case decide.ActStopWithSavepoint:
		_, err := e.Flink(d).StopWithSavepoint(ctx, a.JobID, flink.StopRequest{TriggerID: a.TriggerID, FormatType: a.FormatType, Drain: a.Drain})
		return wrap("stop with savepoint", err)
	case decide.ActTriggerSavepoint:
		_, err := e.Flink(d).TriggerSavepoint(ctx, a.JobID, flink.SavepointRequest{TriggerID: a.TriggerID, FormatType: a.FormatType})
		return wrap("trigger savepoint", err)
	case decide.ActTriggerCheckpoint:
		_, err := e.Flink(d).TriggerCheckpoint(ctx, a.JobID, checkpointType(a.FormatType), a.TriggerID)
		return wrap("trigger checkpoint", err)
	case decide.ActScale:
		return e.scale(ctx, d, a)
	case decide.ActSaveAutoscalerState:
		return e.apply(ctx, RenderAutoscalerState(d, a.AutoscalerState)) // refused when another's (ErrNotOwned)
	case decide.ActDeleteAutoscalerState:
		return deleteOwned(ctx, e.Client, e.Reader, cm(d.Namespace, AutoscalerConfigMapName(d.Name)), d.UID)
	case decide.ActApplyIngress:
		return e.apply(ctx, RenderIngress(d, a.Ingress))
	case decide.ActDeleteIngress:
		return e.deleteIngress(ctx, d)
	case decide.ActDisposeSavepoint:
		// Flink deletes the files asynchronously; a refused request keeps the history entry.
		_, err := e.Flink(d).DisposeSavepoint(ctx, a.Path)
		return wrap("dispose savepoint "+a.Path, err)
	}
	return fmt.Errorf("unknown action %q", a.Kind)
}

func wrap(what string, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

func (e *Executor) deploy(ctx context.Context, d *flinkv1beta1.FlinkDeployment, dep *decide.Deploy) error {
	if err := e.waitForServiceSlot(ctx, d); err != nil {
		return err
	}
	objs, err := Render(Cluster{Resource: d, Spec: dep.Spec, Generation: dep.Generation, Run: dep.Run, JobID: dep.JobID, RestorePath: dep.RestorePath})
	if err != nil {
		return err
	}
	if err := e.precheck(ctx, d, objs.All()); err != nil {
		return err
	}
	for _, obj := range objs.All() {
		if err := e.apply(ctx, obj); err != nil {
			return err
		}
	}
	if dep.Spec.Ingress != nil {
		return e.apply(ctx, RenderIngress(d, dep.Spec.Ingress))
	}
	return nil
}

// waitForServiceSlot refuses a deploy that will create d's REST Service (it is not in the
// cache; it always gets a cluster IP) while every Service create slot is taken, before the
// deploy renders or applies anything.
func (e *Executor) waitForServiceSlot(ctx context.Context, d *flinkv1beta1.FlinkDeployment) error {
	if e.ServiceSlots == nil {
		return nil
	}
	svc := ServiceMetadata(d.Namespace, RESTServiceName(d.Name))
	key := client.ObjectKeyFromObject(svc)
	if err := e.Client.Get(ctx, key, svc); !apierrors.IsNotFound(err) {
		return nil // there, or unknown: apply tells
	}
	return e.ServiceSlots.refuseWhileFull(key, types.NamespacedName{Namespace: d.Namespace, Name: d.Name})
}

func (e *Executor) deleteIngress(ctx context.Context, d *flinkv1beta1.FlinkDeployment) error {
	ing := &networkingv1.Ingress{}
	ing.Namespace, ing.Name = d.Namespace, IngressName(d.Name)
	return deleteOwned(ctx, e.Client, e.Reader, ing, d.UID)
}

// apply creates obj or updates the existing object to it (labels, annotations, owner,
// content). An existing object controlled by anything but obj's controller is refused
// (ErrNotOwned), never adopted. A Deployment, ConfigMap or Service is stamped with its content
// hash (see AnnotationContentHash). Of a kind the cache holds as metadata (Services), an
// unchanged object costs no read past the cache; a changed one is read whole past it first.
func (e *Executor) apply(ctx context.Context, obj client.Object) error {
	stampContentHash(obj)
	key := client.ObjectKeyFromObject(obj)
	existing := asCached(obj)
	err := e.Client.Get(ctx, key, existing)
	if apierrors.IsNotFound(err) {
		err = e.create(ctx, obj)
		if !apierrors.IsAlreadyExists(err) {
			return wrap("create "+describe(obj), err)
		}
		// Not in the cache but on the server: unlabelled, or created a moment ago.
		err = e.reader().Get(ctx, key, existing)
	}
	if err != nil {
		return wrap("get "+describe(obj), err)
	}
	if err := checkControlled(existing, controllerUID(obj)); err != nil {
		return err
	}
	if existing.GetDeletionTimestamp() != nil {
		// Taking it for the wanted object would leave none once it is gone.
		return fmt.Errorf("%s is being deleted: %w", describe(obj), ErrBeingDeleted)
	}
	if meta, ok := existing.(*metav1.PartialObjectMetadata); ok {
		if sameMetadata(meta, obj) {
			return nil
		}
		existing = obj.DeepCopyObject().(client.Object)
		if err := e.reader().Get(ctx, key, existing); err != nil {
			return wrap("get "+describe(obj)+" past the cache", err)
		}
		if err := checkControlled(existing, controllerUID(obj)); err != nil {
			return err
		}
	}
	want := existing.DeepCopyObject().(client.Object)
	want.SetLabels(obj.GetLabels())
	want.SetAnnotations(mergeAnnotations(existing.GetAnnotations(), obj.GetAnnotations()))
	want.SetOwnerReferences(obj.GetOwnerReferences())
	copyContent(want, obj)
	if unchanged(existing, want) {
		return nil
	}
	return wrap("update "+describe(obj), e.Client.Update(ctx, want))
}

// create creates obj, within a Service slot when it is a Service that gets a cluster IP.
func (e *Executor) create(ctx context.Context, obj client.Object) error {
	release, err := e.ServiceSlots.take(obj)
	if err != nil {
		return err
	}
	defer release()
	return e.Client.Create(ctx, obj)
}

func (e *Executor) reader() client.Reader {
	if e.Reader != nil {
		return e.Reader
	}
	return e.Client
}

// copyContent copies the desired content of src into dst, keeping what the API server set.
func copyContent(dst, src client.Object) {
	switch s := src.(type) {
	case *appsv1.Deployment:
		dst.(*appsv1.Deployment).Spec = s.Spec
	case *corev1.ConfigMap:
		dst.(*corev1.ConfigMap).Data = s.Data
	case *networkingv1.Ingress:
		dst.(*networkingv1.Ingress).Spec = s.Spec
	case *corev1.Service:
		svc := dst.(*corev1.Service)
		ip, ips := svc.Spec.ClusterIP, svc.Spec.ClusterIPs
		svc.Spec = s.Spec
		if ip != "" {
			svc.Spec.ClusterIP, svc.Spec.ClusterIPs = ip, ips
		}
	}
}

func describe(obj client.Object) string {
	return fmt.Sprintf("%T %s", obj, types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()})
}

func (e *Executor) deleteCluster(ctx context.Context, d *flinkv1beta1.FlinkDeployment, deleteHA bool) error {
	for _, name := range []string{JobManagerName(d.Name), TaskManagerName(d.Name)} {
		dep := &appsv1.Deployment{}
		dep.Namespace, dep.Name = d.Namespace, name
		if err := deleteOwned(ctx, e.Client, e.Reader, dep, d.UID, client.PropagationPolicy("Background")); err != nil {
			return err
		}
	}
	if deleteHA {
		return e.deleteHA(ctx, d)
	}
	return nil
}

func (e *Executor) deleteAll(ctx context.Context, d *flinkv1beta1.FlinkDeployment) error {
	// Every pass deletes the HA metadata (deleteHA, past the cache by name too), the last one
	// after no JobManager is left to write it, before the flink-config ConfigMap goes.
	if err := e.deleteCluster(ctx, d, true); err != nil {
		return err
	}
	if err := e.deleteIngress(ctx, d); err != nil {
		return err
	}
	for _, obj := range []client.Object{ServiceMetadata(d.Namespace, RESTServiceName(d.Name)), ServiceMetadata(d.Namespace, InternalServiceName(d.Name))} {
		if err := deleteOwned(ctx, e.Client, e.Reader, obj, d.UID); err != nil {
			return err
		}
	}
	if err := deleteOwned(ctx, e.Client, e.Reader, cm(d.Namespace, AutoscalerConfigMapName(d.Name)), d.UID); err != nil {
		return err
	}
	if left, err := e.podsLeft(ctx, d); err != nil || left {
		return err // the ConfigMap goes once no JobManager can write HA metadata any more
	}
	return deleteOwned(ctx, e.Client, e.Reader, cm(d.Namespace, ConfigMapName(d.Name)), d.UID)
}

func cm(ns, name string) *corev1.ConfigMap {
	c := &corev1.ConfigMap{}
	c.Namespace, c.Name = ns, name
	return c
}

// checkpointType is the type a checkpoint action asks Flink for (its FormatType; "": FULL).
func checkpointType(t string) string {
	if t == "" {
		return "FULL"
	}
	return t
}
