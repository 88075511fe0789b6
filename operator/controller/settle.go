package controller

import (
	"context"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// WorkloadSettle is how long a FlinkDeployment waits to be reconciled after an event of its
// JobManager or TaskManager Deployment. Those events come in bursts: the Deployment
// controller and the kubelets write a rollout's status several times within a second (pods
// created, ready, available; the JobManager's and the TaskManagers' Deployments one after the
// other). Looked at once the burst settled, a deploy is seen ready in one reconcile and one
// status write instead of one of each per event. Events of the FlinkDeployment itself (a spec
// change, a deletion) and of its other objects are not delayed, and neither are requeues.
const WorkloadSettle = time.Second

// settled wraps an event handler so that what it enqueues becomes due after, at the soonest,
// after: several events within that time make one reconcile. A request already due sooner (an
// event of the resource itself, a requeue) keeps its time: the queue keeps an item's earliest.
func settled(inner handler.EventHandler, after time.Duration) handler.EventHandler {
	return settledHandler{inner: inner, after: after}
}

type settledHandler struct {
	inner handler.EventHandler
	after time.Duration
}

// Create implements handler.EventHandler.
func (s settledHandler) Create(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	s.inner.Create(ctx, e, delayed(q, s.after))
}

// Update implements handler.EventHandler.
func (s settledHandler) Update(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	s.inner.Update(ctx, e, delayed(q, s.after))
}

// Delete implements handler.EventHandler.
func (s settledHandler) Delete(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	s.inner.Delete(ctx, e, delayed(q, s.after))
}

// Generic implements handler.EventHandler.
func (s settledHandler) Generic(ctx context.Context, e event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	s.inner.Generic(ctx, e, delayed(q, s.after))
}

// delayed is q with its adds delayed by after. A priority queue stays one (controller-runtime's
// handlers then set the priority of what they add, which is kept).
func delayed(q workqueue.TypedRateLimitingInterface[reconcile.Request], after time.Duration) workqueue.TypedRateLimitingInterface[reconcile.Request] {
	if pq, ok := q.(priorityqueue.PriorityQueue[reconcile.Request]); ok {
		return delayedPriorityQueue{PriorityQueue: pq, after: after}
	}
	return delayedQueue{TypedRateLimitingInterface: q, after: after}
}

type delayedPriorityQueue struct {
	priorityqueue.PriorityQueue[reconcile.Request]
	after time.Duration
}

// Add adds item after the delay.
func (q delayedPriorityQueue) Add(item reconcile.Request) {
	q.AddWithOpts(priorityqueue.AddOpts{}, item)
}

// AddWithOpts adds items with o, due after the delay at the soonest.
func (q delayedPriorityQueue) AddWithOpts(o priorityqueue.AddOpts, items ...reconcile.Request) {
	o.After = max(o.After, q.after)
	q.PriorityQueue.AddWithOpts(o, items...)
}

type delayedQueue struct {
	workqueue.TypedRateLimitingInterface[reconcile.Request]
	after time.Duration
}

// Add adds item after the delay.
func (q delayedQueue) Add(item reconcile.Request) {
	q.AddAfter(item, q.after)
}
