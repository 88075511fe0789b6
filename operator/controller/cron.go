package controller

import (
	"context"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/cron"
)

// reconcileTemplate reconciles a cron template: observe its runs, decide, create or delete
// one run, patch status once, requeue until the next fire time. writes follows its writes of
// d (see writeFence).
func (r *FlinkDeploymentReconciler) reconcileTemplate(ctx context.Context, d *flinkv1beta1.FlinkDeployment, writes *fenceTrack) (ctrl.Result, error) {
	runs, err := r.runsOf(ctx, d)
	if err != nil {
		r.Metrics.ReconcileError("observe")
		return ctrl.Result{}, fmt.Errorf("observe runs: %w", err)
	}
	opts, _ := r.optionsFor(d)
	res := cron.Decide(cron.Input{Template: d, Runs: runs, Options: opts, Now: r.Clock.Now()})
	if err := r.executeCron(ctx, d, res.Action); err != nil {
		r.Metrics.ReconcileError(string(res.Action.Kind))
		r.Recorder.Event(d, "Warning", "ActionFailed", fmt.Sprintf("%s failed: %v", res.Action.Kind, err))
		return ctrl.Result{}, fmt.Errorf("%s: %w", res.Action.Kind, err)
	}
	recordEvents(r.Recorder, r.Metrics, d, res.Events)
	if err := r.patchStatus(ctx, d, res.Status); err != nil {
		return statusWriteFailed(ctx, r.Metrics, err)
	}
	writes.note()
	if res.RemoveFinalizer {
		if err := releaseFinalizer(ctx, r.Client, d, Finalizer); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{RequeueAfter: res.RequeueAfter}, nil
}

// runsOf lists the runs of a template (labelled with it and controlled by it), oldest fire
// time first.
func (r *FlinkDeploymentReconciler) runsOf(ctx context.Context, d *flinkv1beta1.FlinkDeployment) ([]cron.Run, error) {
	var list flinkv1beta1.FlinkDeploymentList
	if err := r.Client.List(ctx, &list, client.InNamespace(d.Namespace), client.MatchingLabels{cron.LabelTemplate: d.Name}); err != nil {
		return nil, err
	}
	var runs []cron.Run
	for _, item := range list.Items {
		if !metav1.IsControlledBy(&item, d) {
			continue
		}
		fire, _ := time.Parse(time.RFC3339, item.Annotations[cron.AnnotationFireTime])
		runs = append(runs, cron.Run{
			Name: item.Name, FireTime: fire, State: item.Status.JobStatus.State, Deleting: item.DeletionTimestamp != nil,
		})
	}
	slices.SortFunc(runs, func(a, b cron.Run) int { return a.FireTime.Compare(b.FireTime) })
	return runs, nil
}

// executeCron creates or deletes a run. A run that already exists (a retry after a lost status
// write) is fine when it is this template's.
func (r *FlinkDeploymentReconciler) executeCron(ctx context.Context, d *flinkv1beta1.FlinkDeployment, a cron.Action) error {
	switch a.Kind {
	case cron.ActCreateRun:
		err := r.Client.Create(ctx, a.Run)
		if apierrors.IsAlreadyExists(err) {
			var cur flinkv1beta1.FlinkDeployment
			if gerr := r.Client.Get(ctx, client.ObjectKeyFromObject(a.Run), &cur); gerr != nil {
				return fmt.Errorf("read existing run: %w", gerr)
			}
			if !metav1.IsControlledBy(&cur, d) {
				return fmt.Errorf("FlinkDeployment %s exists and is not a run of this template: rename one of them", a.Run.Name)
			}
			return nil
		}
		return err
	case cron.ActDeleteRun:
		run := &flinkv1beta1.FlinkDeployment{}
		run.Namespace, run.Name = d.Namespace, a.Name
		return client.IgnoreNotFound(r.Client.Delete(ctx, run))
	}
	return nil
}

// templateOf maps a run to its cron template, so a run's change reconciles the template.
func templateOf(_ context.Context, obj client.Object) []reconcile.Request {
	t := obj.GetLabels()[cron.LabelTemplate]
	if t == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: t}}}
}
