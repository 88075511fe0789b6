package controller

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// ownerHandler is the FlinkDeployment controller's handler of its Deployments' events, before
// settled wraps it.
func ownerHandler(t *testing.T) handler.EventHandler {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := flinkv1beta1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(flinkv1beta1.GroupVersion.WithKind("FlinkDeployment"), meta.RESTScopeNamespace)
	return handler.EnqueueRequestForOwner(scheme, mapper, &flinkv1beta1.FlinkDeployment{}, handler.OnlyControllerOwner())
}

// workload is a Deployment of resource version rv controlled by the FlinkDeployment owner
// ("" : by nothing of ours).
func workload(owner, rv string) *appsv1.Deployment {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: owner + "-taskmanager", ResourceVersion: rv}}
	if owner != "" {
		d.OwnerReferences = []metav1.OwnerReference{{
			APIVersion: flinkv1beta1.GroupVersion.String(), Kind: "FlinkDeployment", Name: owner, UID: "u", Controller: ptr.To(true),
		}}
	}
	return d
}

// addsQueue records what is added to a priority queue.
type addsQueue struct {
	priorityqueue.PriorityQueue[reconcile.Request]
	adds []add
}

type add struct {
	Name     string
	After    time.Duration
	Priority *int
}

func (q *addsQueue) AddWithOpts(o priorityqueue.AddOpts, items ...reconcile.Request) {
	for _, i := range items {
		q.adds = append(q.adds, add{Name: i.Name, After: o.After, Priority: o.Priority})
	}
}

// afterQueue records what is added to a plain queue, and after how long.
type afterQueue struct {
	workqueue.TypedRateLimitingInterface[reconcile.Request]
	adds []add
}

func (q *afterQueue) AddAfter(i reconcile.Request, d time.Duration) {
	q.adds = append(q.adds, add{Name: i.Name, After: d})
}

func (q *afterQueue) Add(i reconcile.Request) { q.AddAfter(i, 0) }

// An event of a FlinkDeployment's Deployment reconciles it after the settle time, at the
// priority controller-runtime's handler gives it (low for an unchanged or listed object); a
// Deployment that is not a FlinkDeployment's reconciles nothing.
func TestSettledEnqueues(t *testing.T) {
	const after = 3 * time.Second
	low := ptr.To(handler.LowPriority)
	h := settled(ownerHandler(t), after)
	for name, tc := range map[string]struct {
		send func(context.Context, workqueue.TypedRateLimitingInterface[reconcile.Request])
		want []add
	}{
		"status written": {
			send: func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				h.Update(ctx, event.UpdateEvent{ObjectOld: workload("a", "1"), ObjectNew: workload("a", "2")}, q)
			},
			want: []add{{Name: "a", After: after}},
		},
		"resync of an unchanged object": {
			send: func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				h.Update(ctx, event.UpdateEvent{ObjectOld: workload("a", "2"), ObjectNew: workload("a", "2")}, q)
			},
			want: []add{{Name: "a", After: after, Priority: low}},
		},
		"listed at start-up": {
			send: func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				h.Create(ctx, event.CreateEvent{Object: workload("a", "1"), IsInInitialList: true}, q)
			},
			want: []add{{Name: "a", After: after, Priority: low}},
		},
		"deleted": {
			send: func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				h.Delete(ctx, event.DeleteEvent{Object: workload("a", "1")}, q)
			},
			want: []add{{Name: "a", After: after}},
		},
		"generic": {
			send: func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				h.Generic(ctx, event.GenericEvent{Object: workload("a", "1")}, q)
			},
			want: []add{{Name: "a", After: after}},
		},
		"not ours": {
			send: func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				h.Update(ctx, event.UpdateEvent{ObjectOld: workload("", "1"), ObjectNew: workload("", "2")}, q)
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			q := &addsQueue{}
			tc.send(t.Context(), q)
			if diff := cmp.Diff(tc.want, q.adds); diff != "" {
				t.Errorf("adds (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("plain queue", func(t *testing.T) {
		q := &afterQueue{}
		h.Update(t.Context(), event.UpdateEvent{ObjectOld: workload("a", "1"), ObjectNew: workload("a", "2")}, q)
		if diff := cmp.Diff([]add{{Name: "a", After: after}}, q.adds); diff != "" {
			t.Errorf("adds (-want +got):\n%s", diff)
		}
	})
	t.Run("a longer wait is kept", func(t *testing.T) {
		q := &addsQueue{}
		delayed(q, after).(priorityqueue.PriorityQueue[reconcile.Request]).AddWithOpts(priorityqueue.AddOpts{After: time.Minute}, reconcile.Request{})
		if diff := cmp.Diff([]add{{After: time.Minute}}, q.adds); diff != "" {
			t.Errorf("adds (-want +got):\n%s", diff)
		}
	})
}

// On controller-runtime's priority queue, a burst of Deployment events is one reconcile, due
// after the settle time.
func TestSettledBurstIsOneReconcile(t *testing.T) {
	const after = 300 * time.Millisecond
	h := settled(ownerHandler(t), after)
	q := priorityqueue.New[reconcile.Request]("settle-test")
	t.Cleanup(q.ShutDown)
	for rv := range 5 {
		h.Update(t.Context(), event.UpdateEvent{ObjectOld: workload("a", "1"), ObjectNew: workload("a", string(rune('2'+rv)))}, q)
	}
	if n := q.Len(); n != 0 {
		t.Fatalf("%d due at once, want none before the settle time", n)
	}
	if err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 10*after, true, func(context.Context) (bool, error) {
		return q.Len() > 0, nil
	}); err != nil {
		t.Fatalf("nothing became due: %v", err)
	}
	if n := q.Len(); n != 1 {
		t.Errorf("%d due after a burst of 5 events, want 1", n)
	}
}

// A Deployment event never puts off a reconcile already due sooner: the resource's own event
// (due at once) or a requeue due before the settle time has passed.
func TestSettledKeepsSoonerTimes(t *testing.T) {
	const after = 2 * time.Second
	h := settled(ownerHandler(t), after)
	a := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "a"}}
	update := func(q priorityqueue.PriorityQueue[reconcile.Request]) {
		h.Update(t.Context(), event.UpdateEvent{ObjectOld: workload("a", "1"), ObjectNew: workload("a", "2")}, q)
	}

	q := priorityqueue.New[reconcile.Request]("settle-own-event")
	t.Cleanup(q.ShutDown)
	q.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(SpecChangePriority)}, a)
	update(q)
	if n := q.Len(); n != 1 {
		t.Errorf("own event, then a Deployment event: %d due at once, want 1", n)
	}

	requeued := priorityqueue.New[reconcile.Request]("settle-requeue")
	t.Cleanup(requeued.ShutDown)
	requeued.AddWithOpts(priorityqueue.AddOpts{After: 50 * time.Millisecond}, a)
	update(requeued)
	if err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, after/2, true, func(context.Context) (bool, error) {
		return requeued.Len() == 1, nil
	}); err != nil {
		t.Errorf("a requeue due in 50 ms, then a Deployment event: not due within %s (%v)", after/2, err)
	}
}
