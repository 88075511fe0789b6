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
// other). The window opens with the first event and is not extended: the events within it
// make one reconcile, so a deploy is seen ready in one reconcile and one status write instead
// of one of each per event. Events of the FlinkDeployment itself (a spec change, a deletion)
// and of its other objects are not delayed, and neither are requeues.
const WorkloadSettle = time.Second

// settled wraps an event handler so that what it enqueues (Add, AddAfter, AddWithOpts)
// becomes due after, at the soonest, after: the events within that time of the first make one
// reconcile. On controller-runtime's priority queue, which the FlinkDeployment controller uses,
// a request already due sooner (an event of the resource itself, a requeue) keeps its time: that
// queue keeps an item's earliest. (On a plain workqueue, an item already queued is queued again.)
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

// AddAfter adds item after d, or after the delay when that is longer.
func (q delayedPriorityQueue) AddAfter(item reconcile.Request, d time.Duration) {
	q.AddWithOpts(priorityqueue.AddOpts{After: d}, item)
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
	q.AddAfter(item, 0)
}

// AddAfter adds item after d, or after the delay when that is longer.
func (q delayedQueue) AddAfter(item reconcile.Request, d time.Duration) {
	q.TypedRateLimitingInterface.AddAfter(item, max(d, q.after))
}
