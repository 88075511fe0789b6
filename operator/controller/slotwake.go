package controller

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// slotWakeBuffer is how many wake-ups of freed slots may wait for the queue; one that finds
// the buffer full is dropped, and its resource retries after its back-off instead.
const slotWakeBuffer = 1024

// slotWakes is the source of the resources to reconcile because a slot they waited for was
// freed: onFree is act.ServiceSlots.OnFree (FlinkDeployments waiting to create a Service) or
// act.FetchSlots.OnFree (FlinkSessionJobs waiting to fetch a jar). A woken resource is queued
// in the spec-change lane: its action is ready and a slot waits for it, which a place behind
// the fleet's resyncs would leave idle.
func slotWakes(onFree func(wake func(owner types.NamespacedName))) source.Source {
	wakes := make(chan event.GenericEvent, slotWakeBuffer)
	onFree(func(owner types.NamespacedName) { wakeUp(wakes, owner) })
	return source.Channel(wakes, handler.Funcs{
		GenericFunc: func(_ context.Context, e event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(q, e.Object, SpecChangePriority)
		},
	})
}

// wakeUp sends owner's wake-up without blocking (the caller is a reconcile that just freed a
// slot): it is dropped when the buffer is full. Only the key matters to the queue, so the
// object is bare metadata, whatever the kind.
func wakeUp(wakes chan<- event.GenericEvent, owner types.NamespacedName) bool {
	var obj client.Object = &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: owner.Namespace, Name: owner.Name}}
	select {
	case wakes <- event.GenericEvent{Object: obj}:
		return true
	default:
		return false
	}
}
