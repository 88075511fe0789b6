package controller

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// A freed Service slot's wake-up puts its deployment in the spec-change lane, ahead of the
// queued resyncs; a wake-up that finds the buffer full is dropped, not waited for.
func TestSlotWakes(t *testing.T) {
	var wake func(types.NamespacedName)
	src := slotWakes(func(w func(types.NamespacedName)) { wake = w })
	q := priorityqueue.New[reconcile.Request]("slot-wakes-test")
	t.Cleanup(q.ShutDown)
	if err := src.Start(t.Context(), q); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		q.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(NormalPriority)}, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "resync-" + string(rune('a'+i%26)) + string(rune('a'+i/26))}})
	}
	woken := types.NamespacedName{Namespace: "ns", Name: "waited"}
	wake(woken)
	if err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		return q.Len() == 101, nil
	}); err != nil {
		t.Fatalf("the wake-up never reached the queue: %v", err)
	}
	got, priority, _ := q.GetWithPriority()
	if got.NamespacedName != woken || priority != SpecChangePriority {
		t.Errorf("first out: %v at priority %d, want %v at %d", got.NamespacedName, priority, woken, SpecChangePriority)
	}

	full := make(chan event.GenericEvent, 1)
	if !wakeUp(full, woken) || wakeUp(full, woken) {
		t.Error("wakeUp: want the first sent and the second, on a full buffer, dropped")
	}
}
