package controller

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/bluegreen"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/metrics"
)

// BlueGreenObserver observes a blue/green deployment's children and savepoint.
type BlueGreenObserver interface {
	Observe(ctx context.Context, bg *flinkv1beta1.FlinkBlueGreenDeployment) (bluegreen.Observation, error)
}

// BlueGreenExecutor carries out one blue/green action.
type BlueGreenExecutor interface {
	Execute(ctx context.Context, bg *flinkv1beta1.FlinkBlueGreenDeployment, a bluegreen.Action) error
}

// FlinkBlueGreenDeploymentReconciler reconciles FlinkBlueGreenDeployments: fetch, observe the
// children, decide, one action, one status write, requeue. It has no finalizer: the children
// are controlled by the resource, so Kubernetes's garbage collector deletes them with it (and
// each child's own finalizer shuts its cluster down).
type FlinkBlueGreenDeploymentReconciler struct {
	// Client reads (through the cache) and writes the resources.
	Client client.Client
	// Recorder records Events; Clock tells the time.
	Recorder EventRecorder
	Clock    clock.PassiveClock
	// Options are the operator-wide options (the reconcile interval), reloaded when their
	// file changes.
	Options *config.Live
	// Observer reads the children, the Ingress and the savepoint; Executor carries out the
	// action.
	Observer BlueGreenObserver
	Executor BlueGreenExecutor
	// Metrics records Prometheus metrics (nil: none).
	Metrics *metrics.Recorder
	// Workers is how many resources are reconciled at once (0: the default parallelism).
	Workers int

	scope *ScopeWatch // enqueues what a wider scope admits (nil: nothing)
	fence writeFence
}

// Reconcile implements reconcile.Reconciler.
func (r *FlinkBlueGreenDeploymentReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var bg flinkv1beta1.FlinkBlueGreenDeployment
	if err := r.Client.Get(ctx, req.NamespacedName, &bg); err != nil {
		if apierrors.IsNotFound(err) {
			r.fence.forget(req.NamespacedName)
			r.Metrics.Forget(metrics.KindBlueGreen, req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if bg.DeletionTimestamp != nil || !inScope(r.Options, &bg) {
		// Deleted (the garbage collector deletes the children), or left alone.
		r.Metrics.Forget(metrics.KindBlueGreen, req.NamespacedName)
		return ctrl.Result{}, nil
	}
	flinkv1beta1.FlinkDefaults(r.Options.FlinkDefaults).ApplySpec(bg.Namespace, bg.Spec.Template.Spec)
	writes, fresh := r.fence.enter(&bg, r.Clock.Now(), r.Metrics)
	if !fresh {
		return ctrl.Result{RequeueAfter: StaleReadRetry}, nil
	}
	defer func() { writes.done(r.Clock.Now()) }()
	obs, err := r.Observer.Observe(ctx, &bg)
	if err != nil {
		r.Metrics.ReconcileError("observe")
		return ctrl.Result{}, fmt.Errorf("observe: %w", err)
	}
	nsOpts, _ := r.Options.For(bg.Namespace) // errs only with the operator-wide options, which then hold
	res := bluegreen.Decide(bluegreen.Input{
		Resource: &bg, Blue: obs.Blue, Green: obs.Green, Foreign: obs.Foreign, Savepoint: obs.Savepoint, Ingress: obs.Ingress,
		Now: r.Clock.Now(), ReconcileInterval: r.Options.Options().ReconcileInterval, IngressPolicy: nsOpts.Ingress,
	})
	if err := r.Executor.Execute(ctx, &bg, res.Action); err != nil {
		log.FromContext(ctx).Error(err, "action failed", "action", res.Action.Kind)
		r.Metrics.ReconcileError(string(res.Action.Kind))
		return ctrl.Result{}, reportActionFailure(ctx, r.Client, r.Recorder, r.Clock.Now(), &bg, &bg.Status.Error, res.Status.Error, string(res.Action.Kind), err, nil)
	}
	recordEvents(r.Recorder, r.Metrics, &bg, res.Events)
	if !equality.Semantic.DeepEqual(bg.Status, res.Status) {
		bg.Status = res.Status
		if err := r.Client.Status().Update(ctx, &bg); err != nil {
			return statusWriteFailed(ctx, r.Metrics, fmt.Errorf("update status: %w", err))
		}
		writes.note()
	}
	r.Metrics.Observe(metrics.KindBlueGreen, req.NamespacedName, metrics.ResourceState{
		Lifecycle: string(bg.Status.BlueGreenState), JobStatus: string(bg.Status.JobStatus.State),
	}, r.Clock.Now())
	return ctrl.Result{RequeueAfter: res.RequeueAfter}, nil
}

// SetupWithManager registers the reconciler: it watches blue/green deployments and the
// FlinkDeployments they control (already in the cache, which holds every FlinkDeployment).
func (r *FlinkBlueGreenDeploymentReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return withRescan(ctrl.NewControllerManagedBy(mgr), r.scope.source(blueGreenList)).
		For(&flinkv1beta1.FlinkBlueGreenDeployment{}).
		Owns(&flinkv1beta1.FlinkDeployment{}).
		Named("flinkbluegreendeployment").
		WithOptions(queueOptions(r.Workers)).
		Complete(clippedErrors(r))
}
