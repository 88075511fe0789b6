package controller

import (
	"context"
	"math"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// The FlinkDeployment and FlinkSessionJob queues have two lanes: a spec-change lane, served
// first, and the normal lane, served in the order resources became due. A resource enters the
// spec-change lane when a user asks for something (it is created, its generation changes, or
// its deletion is requested) and leaves it with the first reconcile that gets anywhere: its
// requeues, a failed reconcile's retry included, go to the normal lane. A reconcile that did
// nothing yet (its cache behind the operator's last write, a slot taken, a conflicting write)
// tries again after its delay in the lane it came from (keepLane), so the first action on a
// change does not wait behind the fleet's resyncs, however long their queue (in a
// 10,000-deployment fleet after an upgrade wave, about 9,000 of them). The normal lane cannot be
// starved unless users change specs faster than the workers act on them. Everything else (resyncs, requeues, events of owned objects, the informer's first
// list) is normal: controller-runtime's handlers put a listed or unchanged object at its low
// priority, which a busy fleet never reaches, and the lane handler below lifts the resource's
// own events out of it.
const (
	// SpecChangePriority is the queue priority of a resource a user just changed.
	SpecChangePriority = 10
	// NormalPriority is the queue priority of everything else.
	NormalPriority = 0
)

// laneOptions are queueOptions(n) with controller-runtime's priority queue, which the lanes
// are built on. A controller using them watches its own kind through specLane and completes
// with normalRequeues.
func laneOptions(n int) controller.Options {
	o := queueOptions(n)
	o.UsePriorityQueue = ptr.To(true)
	return o
}

// specLane enqueues a resource on its own events: in the spec-change lane when it is created
// (not listed at start-up), its generation changes or its deletion is requested, else in the
// normal lane. It sits beside the builder's For handler, whose enqueue of the same resource it
// raises (the queue keeps an item's highest priority).
type specLane struct{}

// Create implements handler.EventHandler.
func (specLane) Create(_ context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	lane := SpecChangePriority
	if e.IsInInitialList {
		lane = NormalPriority
	}
	enqueue(q, e.Object, lane)
}

// Update implements handler.EventHandler.
func (specLane) Update(_ context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	enqueue(q, e.ObjectNew, updateLane(e.ObjectOld, e.ObjectNew))
}

// Delete implements handler.EventHandler.
func (specLane) Delete(_ context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	enqueue(q, e.Object, NormalPriority)
}

// Generic implements handler.EventHandler.
func (specLane) Generic(_ context.Context, e event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	enqueue(q, e.Object, NormalPriority)
}

// updateLane is the lane of an update from old to new.
func updateLane(old, new client.Object) int {
	if old == nil || new == nil {
		return NormalPriority
	}
	if old.GetGeneration() != new.GetGeneration() || (old.GetDeletionTimestamp() == nil && new.GetDeletionTimestamp() != nil) {
		return SpecChangePriority
	}
	return NormalPriority
}

// enqueue adds obj's request at priority lane (plainly on a queue without priorities).
func enqueue(q workqueue.TypedRateLimitingInterface[reconcile.Request], obj client.Object, lane int) {
	if obj == nil {
		return
	}
	req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}}
	if pq, ok := q.(priorityqueue.PriorityQueue[reconcile.Request]); ok {
		pq.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(lane)}, req)
		return
	}
	q.Add(req)
}

// keepLanePriority marks a result of keepLane for normalRequeues; no queue sees it.
const keepLanePriority = math.MinInt

// keepLane is the result of a reconcile that did nothing yet and tries again after d: under
// normalRequeues the resource keeps the lane it was handed out in. A throttled hot loop is
// not such a reconcile: it goes to the normal lane.
func keepLane(d time.Duration) reconcile.Result {
	return reconcile.Result{RequeueAfter: d, Priority: ptr.To(keepLanePriority)}
}

// normalRequeues wraps r so that whatever it requeues goes to the normal lane, except a
// keepLane result (controller-runtime requeues at the priority the item was handed out with
// when a result names none).
func normalRequeues(r reconcile.Reconciler) reconcile.Reconciler {
	return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		res, err := r.Reconcile(ctx, req)
		switch {
		case res.Priority == nil:
			res.Priority = ptr.To(NormalPriority)
		case *res.Priority == keepLanePriority:
			res.Priority = nil
		}
		return res, err
	})
}
