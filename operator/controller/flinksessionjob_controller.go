package controller

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/decide"
	"github.com/flinkop/flinkop/operator/metrics"
	"github.com/flinkop/flinkop/operator/sessionjob"
)

// SessionJobFinalizer keeps a FlinkSessionJob until its job is stopped and its jars deleted
// (the Apache operator's name).
const SessionJobFinalizer = "flinksessionjobs.flink.apache.org/finalizer"

// SessionJobObserver observes a session job and its session cluster.
type SessionJobObserver interface {
	Observe(ctx context.Context, j *flinkv1beta1.FlinkSessionJob) (sessionjob.Observation, *flinkv1beta1.FlinkDeployment, error)
}

// SessionJobExecutor carries out one action of a session job on its session cluster.
type SessionJobExecutor interface {
	Execute(ctx context.Context, j *flinkv1beta1.FlinkSessionJob, cluster *flinkv1beta1.FlinkDeployment, a sessionjob.Action) error
}

// FlinkSessionJobReconciler reconciles FlinkSessionJobs: fetch, finalizer, observe, decide,
// one action, one status patch, requeue.
type FlinkSessionJobReconciler struct {
	Client   client.Client
	Recorder EventRecorder
	Clock    clock.PassiveClock
	// Options are the operator-wide options, reloaded when their file changes; its
	// namespace's, the session cluster's and then the job's kubernetes.operator.* keys
	// override them.
	Options  *config.Live
	Observer SessionJobObserver
	Executor SessionJobExecutor
	// Metrics records Prometheus metrics (nil: none).
	Metrics *metrics.Recorder
	// Workers is how many session jobs are reconciled at once (0: the default
	// kubernetes.operator.reconcile.parallelism).
	Workers int
	// SnapshotSlots bound the snapshots in flight across the fleet (nil: no bound).
	SnapshotSlots *SnapshotSlots
	// Canaries follows the canary resources (nil: a canary is reconciled as nothing).
	Canaries *Canaries

	scope      *ScopeWatch // enqueues what a wider scope admits (nil: nothing)
	fence      writeFence
	exceptions exceptionMarks
	// fetchSlots are the executor's: a deleted job's are given back here, a reconcile's
	// end passes a slot kept for it on, and its watch cancels outdated fetches.
	fetchSlots *act.FetchSlots
}

// Reconcile implements reconcile.Reconciler.
func (r *FlinkSessionJobReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	defer r.fetchSlots.Returned(req.NamespacedName) // a fetch slot kept for it and not taken passes on
	var j flinkv1beta1.FlinkSessionJob
	if err := r.Client.Get(ctx, req.NamespacedName, &j); err != nil {
		if apierrors.IsNotFound(err) {
			r.fetchSlots.Forget(req.NamespacedName)
			r.Canaries.Deleted(flinkv1beta1.JobKindSessionJob, req.NamespacedName)
			r.Metrics.Forget(flinkv1beta1.JobKindSessionJob, req.NamespacedName)
			r.fence.forget(req.NamespacedName)
			r.exceptions.forget(req.NamespacedName)
			r.SnapshotSlots.note(sessionJobSlot(req), false)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if canary, err := reconcileCanary(ctx, r.Client, r.Canaries, flinkv1beta1.JobKindSessionJob, &j, SessionJobFinalizer); canary {
		return ctrl.Result{}, err
	}
	if !inScope(r.Options, &j) { // left as it is; it holds no metrics and no snapshot slot
		r.Metrics.Forget(flinkv1beta1.JobKindSessionJob, req.NamespacedName)
		r.SnapshotSlots.note(sessionJobSlot(req), false)
		return ctrl.Result{}, nil
	}
	writes, fresh := r.fence.enter(&j, r.Clock.Now(), r.Metrics)
	if !fresh {
		return keepLane(StaleReadRetry), nil
	}
	defer func() { writes.done(r.Clock.Now()) }()
	if proceed, err := ensureFinalizer(ctx, r.Client, &j, SessionJobFinalizer); !proceed {
		return finalizerFailed(ctx, r.Metrics, err)
	}
	writes.note()
	obs, cluster, err := r.Observer.Observe(ctx, &j)
	if err != nil {
		r.Metrics.ReconcileError("observe")
		return ctrl.Result{}, fmt.Errorf("observe: %w", err)
	}
	if obs.RESTDeferred {
		return ctrl.Result{RequeueAfter: decide.AnswerBudgetRetry}, nil // unknown, not absent: see flink.AnswerBudget
	}
	opts, optErr := r.optionsFor(&j, cluster)
	now := r.Clock.Now()
	res := sessionjob.Decide(sessionjob.Input{Resource: &j, Options: opts, Observed: obs, Now: now, NoSnapshotSlot: r.SnapshotSlots.full(sessionJobSlot(req))})
	exceptions, reported := r.exceptions.events(req.NamespacedName, obs.Job, opts)
	res.Events = append(res.Events, exceptions...)
	if optErr != nil && res.Status.Error == "" {
		res.Status.Error = decide.ErrorJSON("InvalidOptions", optErr.Error(), opts.Exceptions)
		r.Recorder.Event(&j, corev1.EventTypeWarning, "InvalidOptions", optErr.Error())
		decide.FailReady(&res.Status.CommonStatus, j.Status.Conditions, j.Generation, now, "InvalidOptions")
	}
	if r.SnapshotSlots.refused(sessionJobSlot(req), res.Action.Kind, &res.Status.JobStatus) {
		r.Metrics.SnapshotSlotWait()
		return keepLane(decide.SlotRetry(string(j.UID))), nil // another worker took the last slot
	}
	if err := writeRecords(ctx, r.Client, &j, flinkv1beta1.JobKindSessionJob, opts, res.Records); err != nil {
		r.Metrics.ReconcileError("records")
		return ctrl.Result{}, err
	}
	if err := r.Executor.Execute(ctx, &j, cluster, res.Action); fetchStopped(err) {
		return r.fetchWait(ctx, &j, res.Status.Error, string(res.Action.Kind), err, opts.Exceptions)
	} else if err != nil {
		log.FromContext(ctx).Error(err, "action failed", "action", res.Action.Kind)
		r.Metrics.ReconcileError(string(res.Action.Kind))
		return ctrl.Result{}, reportActionFailure(ctx, r.Client, r.Recorder, r.Clock.Now(), &j, &j.Status.Error, res.Status.Error, string(res.Action.Kind), err, &opts.Exceptions)
	}
	recordEvents(r.Recorder, r.Metrics, &j, res.Events)
	reported()
	if !equality.Semantic.DeepEqual(j.Status, res.Status) {
		j.Status = res.Status
		if err := r.Client.Status().Update(ctx, &j); err != nil {
			statusTooLarge(r.Recorder, &j, err)
			return statusWriteFailed(ctx, r.Metrics, fmt.Errorf("update status: %w", err))
		}
		writes.note()
	}
	r.SnapshotSlots.note(sessionJobSlot(req), snapshotInFlight(&res.Status.JobStatus))
	r.Metrics.Observe(flinkv1beta1.JobKindSessionJob, req.NamespacedName, metrics.ResourceState{Lifecycle: string(res.Status.LifecycleState)}, now)
	if res.RemoveFinalizer {
		if err := releaseFinalizer(ctx, r.Client, &j, SessionJobFinalizer); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{RequeueAfter: res.RequeueAfter}, nil
}

// optionsFor applies the session cluster's and then the job's kubernetes.operator.* keys to
// the operator options.
func (r *FlinkSessionJobReconciler) optionsFor(j *flinkv1beta1.FlinkSessionJob, cluster *flinkv1beta1.FlinkDeployment) (config.Options, error) {
	conf := map[string]string{}
	if cluster != nil {
		if c, err := cluster.Spec.FlinkConfiguration.Flatten(); err == nil {
			for k, v := range config.OperatorKeys(c) {
				conf[k] = v
			}
		}
	}
	if c, err := j.Spec.FlinkConfiguration.Flatten(); err == nil {
		for k, v := range config.OperatorKeys(c) {
			conf[k] = v
		}
	}
	base, nsErr := r.Options.For(j.Namespace)
	opts, err := base.With(conf)
	return opts, errors.Join(nsErr, err)
}

// SetupWithManager registers the reconciler; a change of a session cluster reconciles the
// jobs that target it.
func (r *FlinkSessionJobReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return withRescan(ctrl.NewControllerManagedBy(mgr), r.scope.source(sessionJobList)).
		For(&flinkv1beta1.FlinkSessionJob{}).
		Watches(&flinkv1beta1.FlinkSessionJob{}, specLane{}). // see lanes.go
		Watches(&flinkv1beta1.FlinkDeployment{}, handler.EnqueueRequestsFromMapFunc(r.sessionJobsOf)).
		Watches(&flinkv1beta1.FlinkSessionJob{}, fetchCancels(r.fetchSlots)). // a deleted or changed job's fetch stops
		// A freed jar fetch slot wakes the job it is kept for (see act.FetchSlots).
		WatchesRawSource(slotWakes(r.fetchSlots.OnFree)).
		Named("flinksessionjob").
		WithOptions(laneOptions(r.Workers)).
		Complete(clippedErrors(normalRequeues(r)))
}

// sessionJobsOf maps a FlinkDeployment to the FlinkSessionJobs that target it.
func (r *FlinkSessionJobReconciler) sessionJobsOf(ctx context.Context, obj client.Object) []reconcile.Request {
	var jobs flinkv1beta1.FlinkSessionJobList
	if err := r.Client.List(ctx, &jobs, client.InNamespace(obj.GetNamespace())); err != nil {
		return nil
	}
	var out []reconcile.Request
	for _, j := range jobs.Items {
		if j.Spec.DeploymentName == obj.GetName() {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: j.Namespace, Name: j.Name}})
		}
	}
	return out
}
