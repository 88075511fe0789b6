package controller

import (
	"context"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/cron"
	"github.com/flinkop/flinkop/operator/decide"
	"github.com/flinkop/flinkop/operator/metrics"
	"github.com/flinkop/flinkop/operator/observe"
)

// Finalizer keeps a FlinkDeployment until its cluster is cleaned up (the Apache operator's
// name, so resources move between the operators).
const Finalizer = "flinkdeployments.flink.apache.org/finalizer"

// Executor carries out one action.
type Executor interface {
	Execute(ctx context.Context, d *flinkv1beta1.FlinkDeployment, a decide.Action) error
}

// Observer observes a deployment's cluster.
type Observer interface {
	Observe(ctx context.Context, d *flinkv1beta1.FlinkDeployment) (decide.Observation, error)
}

// EventRecorder records Kubernetes Events about a resource (record.EventRecorder's Event).
type EventRecorder interface {
	Event(object runtime.Object, eventtype, reason, message string)
}

// FlinkDeploymentReconciler reconciles FlinkDeployments: fetch, finalizer, observe, decide,
// one action, one status patch, requeue.
type FlinkDeploymentReconciler struct {
	Client   client.Client
	Recorder EventRecorder
	Clock    clock.PassiveClock
	// Options are the operator-wide options, reloaded when their file changes; its
	// namespace's and then a resource's kubernetes.operator.* keys override them.
	Options  *config.Live
	Observer Observer
	Executor Executor
	// Metrics records Prometheus metrics (nil: none).
	Metrics *metrics.Recorder
	// Workers is how many FlinkDeployments are reconciled at once (0: the default
	// kubernetes.operator.reconcile.parallelism).
	Workers int
	// SnapshotSlots bound the snapshots in flight across the fleet (nil: no bound).
	SnapshotSlots *SnapshotSlots
	// Canaries follows the canary resources (nil: a canary is reconciled as nothing).
	Canaries *Canaries

	probes     probes
	loops      loopGuard
	exceptions exceptionMarks
	scope      *ScopeWatch // enqueues what a wider scope admits (nil: nothing)
	fence      writeFence
	// serviceSlots are the executor's, whose back-off of a deleted resource is forgotten here.
	serviceSlots *act.ServiceSlots
	// indexApp: SetupWithManager registers act.IndexApp, which the Observer and Executor
	// list through.
	indexApp bool
}

// Reconcile implements reconcile.Reconciler.
func (r *FlinkDeploymentReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	defer r.serviceSlots.Returned(req.NamespacedName) // a turn woken for and not taken passes on
	if wait := r.loops.wait(req.NamespacedName, r.Clock.Now()); wait > 0 {
		r.Metrics.Throttled()
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	var d flinkv1beta1.FlinkDeployment
	if err := r.Client.Get(ctx, req.NamespacedName, &d); err != nil {
		if apierrors.IsNotFound(err) {
			r.Canaries.Deleted(flinkv1beta1.JobKindDeployment, req.NamespacedName)
			r.Metrics.Forget(flinkv1beta1.JobKindDeployment, req.NamespacedName)
			r.probes.forget(req.NamespacedName)
			r.exceptions.forget(req.NamespacedName)
			r.loops.forget(req.NamespacedName)
			r.serviceSlots.Forget(req.NamespacedName)
			r.fence.forget(req.NamespacedName)
			r.SnapshotSlots.note(deploymentSlot(req), false)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if canary, err := reconcileCanary(ctx, r.Client, r.Canaries, flinkv1beta1.JobKindDeployment, &d, Finalizer); canary {
		return ctrl.Result{}, err
	}
	if !inScope(r.Options, &d) { // left as it is; it holds no metrics and no snapshot slot
		r.Metrics.Forget(flinkv1beta1.JobKindDeployment, req.NamespacedName)
		r.SnapshotSlots.note(deploymentSlot(req), false)
		return ctrl.Result{}, nil
	}
	writes, fresh := r.fence.enter(&d, r.Clock.Now(), r.Metrics)
	if !fresh {
		return keepLane(StaleReadRetry), nil
	}
	defer func() { writes.done(r.Clock.Now()) }()
	if proceed, err := ensureFinalizer(ctx, r.Client, &d, Finalizer); !proceed {
		return finalizerFailed(ctx, r.Metrics, err)
	}
	writes.note()
	// After the finalizer's write (a write decodes the API server's answer into d, which never
	// carries them), before anything reads d's configuration: a cron template's too.
	flinkv1beta1.FlinkDefaults(r.Options.FlinkDefaults).Apply(&d)
	if cron.IsTemplate(&d) {
		return r.reconcileTemplate(ctx, &d, writes)
	}
	opts, optErr := r.optionsFor(&d)
	obs, err := r.Observer.Observe(ctx, &d)
	if err != nil {
		r.Metrics.ReconcileError("observe")
		return ctrl.Result{}, fmt.Errorf("observe: %w", err)
	}
	if obs.RESTDeferred {
		return ctrl.Result{RequeueAfter: decide.AnswerBudgetRetry}, nil // unknown, not absent: see flink.AnswerBudget
	}
	now := r.Clock.Now()
	res := decide.Decide(decide.Input{
		Resource: decide.WithAutoscaler(&d, obs.Autoscaler), Options: opts, Observed: obs, Now: now,
		RESTFailures: r.probes.before(req.NamespacedName), NoSnapshotSlot: r.SnapshotSlots.full(deploymentSlot(req)),
		FlinkDefaults: r.Options.FlinkDefaults,
	})
	r.probes.record(req.NamespacedName, obs)
	exceptions, reported := r.exceptions.events(req.NamespacedName, obs.Job, opts)
	res.Events = append(res.Events, exceptions...)
	if optErr != nil && res.Status.Error == "" {
		res.Status.Error = decide.ErrorJSON("InvalidOptions", optErr.Error(), opts.Exceptions)
		res.Events = append(res.Events, decide.Event{Type: decide.Warning, Reason: "InvalidOptions", Message: optErr.Error()})
		decide.FailReady(&res.Status.CommonStatus, d.Status.Conditions, d.Generation, now, "InvalidOptions")
	}
	if why := cron.Ignored(&d); why != "" && res.Status.Error == "" {
		res.Status.Error = decide.ErrorJSON("InvalidCron", why, opts.Exceptions)
		if d.Status.Error != res.Status.Error {
			res.Events = append(res.Events, decide.Event{Type: decide.Warning, Reason: "InvalidCron", Message: why})
		}
		decide.FailReady(&res.Status.CommonStatus, d.Status.Conditions, d.Generation, now, "InvalidCron")
	}
	if r.SnapshotSlots.refused(deploymentSlot(req), res.Action.Kind, &res.Status.JobStatus) {
		r.Metrics.SnapshotSlotWait()
		return keepLane(decide.SlotRetry(string(d.UID))), nil // another worker took the last slot
	}
	if err := writeRecords(ctx, r.Client, &d, flinkv1beta1.JobKindDeployment, opts, res.Records); err != nil {
		r.Metrics.ReconcileError("records")
		return ctrl.Result{}, err
	}
	if err := r.Executor.Execute(ctx, &d, res.Action); err != nil {
		if later := (*act.RetryLaterError)(nil); errors.As(err, &later) {
			log.FromContext(ctx).V(1).Info("action waits for a slot", "action", res.Action.Kind, "reason", err.Error())
			r.Metrics.SlotWait()
			return keepLane(later.After), nil
		}
		log.FromContext(ctx).Error(err, "action failed", "action", res.Action.Kind)
		r.Metrics.ReconcileError(string(res.Action.Kind))
		return ctrl.Result{}, reportActionFailure(ctx, r.Client, r.Recorder, r.Clock.Now(), &d, &d.Status.Error, res.Status.Error, string(res.Action.Kind), err, &opts.Exceptions)
	}
	recordEvents(r.Recorder, r.Metrics, &d, res.Events)
	r.autoscaled(req.NamespacedName, res)
	reported()
	if err := r.patchStatus(ctx, &d, res.Status); err != nil {
		return statusWriteFailed(ctx, r.Metrics, err)
	}
	writes.note()
	r.SnapshotSlots.note(deploymentSlot(req), snapshotInFlight(&res.Status.JobStatus))
	cpu, memory := metrics.Usage(res.Status.ClusterInfo)
	r.Metrics.Observe(flinkv1beta1.JobKindDeployment, req.NamespacedName, metrics.ResourceState{
		Lifecycle: string(res.Status.LifecycleState), JobManager: string(res.Status.JobManagerDeploymentStatus),
		FlinkVersion: res.Status.ClusterInfo[flinkv1beta1.ClusterInfoFlinkVersion], CPU: cpu, Memory: memory,
	}, r.Clock.Now())
	if res.RemoveFinalizer {
		if err := releaseFinalizer(ctx, r.Client, &d, Finalizer); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{RequeueAfter: res.RequeueAfter}, nil
}

// optionsFor applies the resource's kubernetes.operator.* overrides to the operator options.
func (r *FlinkDeploymentReconciler) optionsFor(d *flinkv1beta1.FlinkDeployment) (config.Options, error) {
	conf, err := d.Spec.FlinkConfiguration.Flatten()
	if err != nil {
		conf = nil // Validate reports a configuration that does not flatten
	}
	base, nsErr := r.Options.For(d.Namespace)
	opts, err := base.With(config.OperatorKeys(conf))
	return opts, errors.Join(nsErr, err)
}

// patchStatus writes status once, with optimistic locking (the resourceVersion read at the
// start of the reconcile), and not at all when nothing changed. The status subresource takes
// the whole status: the operator owns it.
func (r *FlinkDeploymentReconciler) patchStatus(ctx context.Context, d *flinkv1beta1.FlinkDeployment, st flinkv1beta1.FlinkDeploymentStatus) error {
	if equality.Semantic.DeepEqual(d.Status, st) {
		return nil
	}
	d.Status = st
	if err := r.Client.Status().Update(ctx, d); err != nil {
		statusTooLarge(r.Recorder, d, err)
		return fmt.Errorf("update status: %w", err)
	}
	return nil
}

// SetupWithManager registers the reconciler, watching the objects it owns.
func (r *FlinkDeploymentReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.indexApp {
		if err := act.IndexByApp(context.Background(), mgr.GetFieldIndexer()); err != nil {
			return err
		}
		if err := act.IndexSessionJobsByCluster(context.Background(), mgr.GetFieldIndexer()); err != nil {
			return err
		}
	}
	if r.indexApp && r.Options.Options().SnapshotResources {
		// The session job reconciler reads through it too (both are set up from one Setup).
		if err := act.IndexSnapshotsByJob(context.Background(), mgr.GetFieldIndexer()); err != nil {
			return err
		}
	}
	// Events of its Deployments come in bursts: those within WorkloadSettle of the first
	// make one reconcile.
	workloads := settled(handler.EnqueueRequestForOwner(mgr.GetScheme(), mgr.GetRESTMapper(),
		&flinkv1beta1.FlinkDeployment{}, handler.OnlyControllerOwner()), WorkloadSettle)
	return withRescan(ctrl.NewControllerManagedBy(mgr), r.scope.source(deploymentList)).
		For(&flinkv1beta1.FlinkDeployment{}).
		Watches(&flinkv1beta1.FlinkDeployment{}, specLane{}). // see lanes.go
		Watches(&appsv1.Deployment{}, workloads).             // see WorkloadSettle
		Owns(&corev1.Service{}, builder.OnlyMetadata).        // see act.MetadataOnly
		Owns(&corev1.ConfigMap{}, builder.OnlyMetadata, builder.WithPredicates(predicate.NewPredicateFuncs(configMapEnqueues))).
		Owns(&networkingv1.Ingress{}).
		// A deleted session job may unblock the deletion of its session cluster.
		// Only a change of its spec or its deletion changes what the cluster needs for it (a
		// deletion that waits): not its status writes.
		Watches(&flinkv1beta1.FlinkSessionJob{}, handler.EnqueueRequestsFromMapFunc(sessionClusterOf),
			builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		// A run that ends, or is gone, moves its cron template on.
		Watches(&flinkv1beta1.FlinkDeployment{}, handler.EnqueueRequestsFromMapFunc(templateOf)).
		// A freed Service create slot wakes the deployment that waited longest for one.
		WatchesRawSource(slotWakes(r.serviceSlots.OnFree)).
		Named("flinkdeployment").
		WithOptions(laneOptions(r.Workers)).
		Complete(clippedErrors(normalRequeues(r)))
}

// configMapEnqueues reports whether an event of an owned ConfigMap reconciles its owner: not
// the autoscaler's state, which every look at an autoscaled job writes (each write would start
// the next look at once).
func configMapEnqueues(o client.Object) bool {
	return o.GetLabels()[act.LabelComponent] != act.ComponentAutoscaler
}

// sessionClusterOf maps a FlinkSessionJob to its session FlinkDeployment.
func sessionClusterOf(_ context.Context, obj client.Object) []reconcile.Request {
	j, ok := obj.(*flinkv1beta1.FlinkSessionJob)
	if !ok || j.Spec.DeploymentName == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: j.Namespace, Name: j.Spec.DeploymentName}}}
}

var _ Observer = (*observe.Observer)(nil)

// autoscaled gives the metrics the autoscaler's look at this reconcile and its errors.
func (r *FlinkDeploymentReconciler) autoscaled(key types.NamespacedName, res decide.Result) {
	errs := 0
	for _, e := range res.Events {
		if e.Reason == decide.ReasonAutoscalerError {
			errs++
		}
	}
	if look := res.Autoscaler; look != nil {
		r.Metrics.Autoscaled(key, look.Topology, &look.Decision, errs)
	} else {
		r.Metrics.Autoscaled(key, nil, nil, errs)
	}
}
