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

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/metrics"
	"github.com/flinkop/flinkop/operator/snapshot"
)

// SnapshotFinalizer keeps a FlinkStateSnapshot until its savepoint is disposed of, when it
// asks for that (the Apache operator's name).
const SnapshotFinalizer = "flinkstatesnapshots.flink.apache.org/finalizer"

// SnapshotObserver observes a snapshot's job and operation.
type SnapshotObserver interface {
	Observe(ctx context.Context, s *flinkv1beta1.FlinkStateSnapshot) (snapshot.Observation, *flinkv1beta1.FlinkDeployment, error)
}

// SnapshotExecutor carries out one snapshot action on its job's cluster.
type SnapshotExecutor interface {
	Execute(ctx context.Context, cluster *flinkv1beta1.FlinkDeployment, a snapshot.Action) error
}

// FlinkStateSnapshotReconciler reconciles FlinkStateSnapshots: fetch, finalizer, observe,
// decide, one action, one status write (and the labels, when they change), requeue. It
// watches only snapshots: a snapshot waiting for its job looks again after the reconcile
// interval, one in progress after the progress-check interval, so a fleet's deployment
// status writes cost it nothing.
type FlinkStateSnapshotReconciler struct {
	Client   client.Client
	Recorder EventRecorder
	Clock    clock.PassiveClock
	// Options are the operator-wide options (the intervals), reloaded when their file
	// changes.
	Options  *config.Live
	Observer SnapshotObserver
	Executor SnapshotExecutor
	// Metrics records Prometheus metrics (nil: none).
	Metrics *metrics.Recorder
	// Workers is how many snapshots are reconciled at once (0: the default
	// kubernetes.operator.reconcile.parallelism).
	Workers int

	scope *ScopeWatch // enqueues what a wider scope admits (nil: nothing)
	fence writeFence
	// indexRestorers: the Observer reads through act.IndexRestorePath, which SetupWithManager
	// registers.
	indexRestorers bool
}

// Reconcile implements reconcile.Reconciler.
func (r *FlinkStateSnapshotReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var s flinkv1beta1.FlinkStateSnapshot
	if err := r.Client.Get(ctx, req.NamespacedName, &s); err != nil {
		if apierrors.IsNotFound(err) {
			r.fence.forget(req.NamespacedName)
			r.Metrics.Forget(metrics.KindSnapshot, req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !inScope(r.Options, &s) {
		r.Metrics.Forget(metrics.KindSnapshot, req.NamespacedName)
		return ctrl.Result{}, nil
	}
	writes, fresh := r.fence.enter(&s, r.Clock.Now(), r.Metrics)
	if !fresh {
		return ctrl.Result{RequeueAfter: StaleReadRetry}, nil
	}
	defer func() { writes.done(r.Clock.Now()) }()
	if proceed, err := ensureFinalizer(ctx, r.Client, &s, SnapshotFinalizer); !proceed {
		return finalizerFailed(ctx, r.Metrics, err)
	}
	writes.note()
	obs, cluster, err := r.Observer.Observe(ctx, &s)
	if err != nil {
		r.Metrics.ReconcileError("observe")
		return ctrl.Result{}, fmt.Errorf("observe: %w", err)
	}
	res := snapshot.Decide(r.input(&s, obs))
	if err := r.Executor.Execute(ctx, cluster, res.Action); err != nil {
		log.FromContext(ctx).Error(err, "action failed", "action", res.Action.Kind)
		r.Metrics.ReconcileError(string(res.Action.Kind))
		return ctrl.Result{}, reportActionFailure(ctx, r.Client, r.Recorder, r.Clock.Now(), &s, &s.Status.Error, res.Status.Error, string(res.Action.Kind), err, nil)
	}
	recordEvents(r.Recorder, r.Metrics, &s, res.Events)
	if !equality.Semantic.DeepEqual(s.Status, res.Status) {
		s.Status = res.Status
		if err := r.Client.Status().Update(ctx, &s); err != nil {
			return statusWriteFailed(ctx, r.Metrics, fmt.Errorf("update status: %w", err))
		}
		writes.note()
	}
	r.Metrics.Observe(metrics.KindSnapshot, req.NamespacedName, metrics.ResourceState{Lifecycle: string(s.Status.State), Savepoint: s.Spec.IsSavepoint()}, r.Clock.Now())
	if res.Labels != nil && s.DeletionTimestamp == nil {
		patch := client.MergeFrom(s.DeepCopy())
		s.Labels = res.Labels
		if err := r.Client.Patch(ctx, &s, patch); err != nil {
			return ctrl.Result{}, fmt.Errorf("update labels: %w", err)
		}
		writes.note()
	}
	if res.RemoveFinalizer {
		if err := releaseFinalizer(ctx, r.Client, &s, SnapshotFinalizer); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{RequeueAfter: res.RequeueAfter}, nil
}

// pathRules are where the snapshots of namespace ns may record and dispose of savepoints, from
// the operator's own configuration for ns (its Flink defaults' state directories and
// config.KeySnapshotAllowedPathPrefixes), never from a resource's flinkConfiguration, which
// its tenant writes.
func (r *FlinkStateSnapshotReconciler) pathRules(ns string) snapshot.PathRules {
	opts, _ := r.Options.For(ns) // errs only on a Live built otherwise, with the operator-wide options
	return snapshot.PathRules{StateDirs: snapshot.StateDirs(r.Options.FlinkDefaults(ns, "")), AllowedPrefixes: opts.SnapshotPathPrefixes()}
}

// SetupWithManager registers the reconciler, and the cache index its disposals read
// (act.IndexRestorePath) when it reads a manager's cache.
func (r *FlinkStateSnapshotReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.indexRestorers {
		if err := act.IndexJobsByRestorePath(context.Background(), mgr.GetFieldIndexer()); err != nil {
			return err
		}
	}
	return withRescan(ctrl.NewControllerManagedBy(mgr), r.scope.source(snapshotList)).
		For(&flinkv1beta1.FlinkStateSnapshot{}).
		Named("flinkstatesnapshot").
		WithOptions(queueOptions(r.Workers)).
		Complete(clippedErrors(r))
}

// input is what the snapshot machine decides s on, with what was observed of it.
func (r *FlinkStateSnapshotReconciler) input(s *flinkv1beta1.FlinkStateSnapshot, obs snapshot.Observation) snapshot.Input {
	o := r.Options.Options()
	return snapshot.Input{
		Resource: s, Observed: obs, Now: r.Clock.Now(),
		ReconcileInterval: o.ReconcileInterval, ProgressInterval: o.ProgressCheckInterval, Paths: r.pathRules(s.Namespace),
	}
}
