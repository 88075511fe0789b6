package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// laneQueue is a FlinkDeployment controller's queue fed as the manager feeds it: every event
// through the builder's For handler and, unless plain, through specLane too.
type laneQueue struct {
	q     priorityqueue.PriorityQueue[reconcile.Request]
	plain bool
}

func newLaneQueue(t *testing.T, plain bool) *laneQueue {
	t.Helper()
	q := priorityqueue.New[reconcile.Request]("lanes-test")
	t.Cleanup(q.ShutDown)
	return &laneQueue{q: q, plain: plain}
}

func laneObject(name string, generation int64) *flinkv1beta1.FlinkDeployment {
	return &flinkv1beta1.FlinkDeployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Generation: generation, ResourceVersion: fmt.Sprint(generation)}}
}

func (l *laneQueue) handlers() []handler.EventHandler {
	hs := []handler.EventHandler{&handler.EnqueueRequestForObject{}}
	if !l.plain {
		hs = append(hs, specLane{})
	}
	return hs
}

func (l *laneQueue) listed(o client.Object) {
	for _, h := range l.handlers() {
		h.Create(context.Background(), event.CreateEvent{Object: o, IsInInitialList: true}, l.q)
	}
}

func (l *laneQueue) updated(old, new client.Object) {
	for _, h := range l.handlers() {
		h.Update(context.Background(), event.UpdateEvent{ObjectOld: old, ObjectNew: new}, l.q)
	}
}

// next hands out the next resource as controller-runtime's controller does, runs r on it and
// queues it again as the controller does with r's result (at once, where a resync would wait).
func (l *laneQueue) next(t *testing.T, r reconcile.Reconciler) (string, int) {
	t.Helper()
	req, prio, _ := l.q.GetWithPriority()
	res, err := r.Reconcile(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Priority != nil {
		prio = *res.Priority
	}
	l.q.Done(req)
	l.q.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(prio)}, req)
	return req.Name, prio
}

var resync = reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
	return reconcile.Result{RequeueAfter: time.Minute}, nil
})

// waitOnce is resync, except that name's first reconcile does nothing yet (keepLane).
func waitOnce(name string) reconcile.Reconciler {
	waited := false
	return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		if req.Name == name && !waited {
			waited = true
			return keepLane(time.Second), nil
		}
		return resync(ctx, req)
	})
}

// TestSpecChangeLane: with a hundred resources queued for their resync, a spec change is
// handed out next, and its requeue goes back to the normal lane (unless that reconcile did
// nothing yet: then it tries again in the spec-change lane); a resource listed at
// start-up is served in its turn among busy resources. The broken variants: the builder's
// handler alone (no specLane) serves the change after the hundred and never serves the listed
// resource; without normalRequeues a changed resource keeps jumping the queue, and busy
// resources starve the listed one.
func TestSpecChangeLane(t *testing.T) {
	if opts := laneOptions(7); opts.UsePriorityQueue == nil || !*opts.UsePriorityQueue || opts.MaxConcurrentReconciles != 7 {
		t.Fatalf("laneOptions(7) = %+v, want the priority queue with 7 workers", opts)
	}
	type result struct {
		ChangeServedAs   int // 1-based position of the changed resource's first turn among the next 101
		RequeuedPriority int // the priority its requeue got
		ChangeTurns      int // how many of those 101 turns it took
		ListedServedAs   int // the listed resource among 21 busy ones (-1: not in 200)
	}
	run := func(t *testing.T, plain bool, r reconcile.Reconciler) result {
		t.Helper()
		var got result
		l := newLaneQueue(t, plain)
		for i := range 100 { // resyncs come due, requeued as the controller requeues
			l.q.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(NormalPriority)}, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(laneObject(fmt.Sprint("r", i), 1))})
		}
		l.updated(laneObject("changed", 1), laneObject("changed", 2))
		for n := 1; n <= 101; n++ {
			if name, prio := l.next(t, r); name == "changed" {
				if got.ChangeTurns++; got.ChangeServedAs == 0 {
					got.ChangeServedAs, got.RequeuedPriority = n, prio
				}
			}
		}

		l = newLaneQueue(t, plain)
		l.listed(laneObject("listed", 1))
		for i := range 20 {
			l.updated(laneObject(fmt.Sprint("busy", i), 1), laneObject(fmt.Sprint("busy", i), 2))
		}
		got.ListedServedAs = -1
		for n := 1; n <= 200; n++ {
			if name, _ := l.next(t, r); name == "listed" {
				got.ListedServedAs = n
				break
			}
		}
		return got
	}
	for name, tc := range map[string]struct {
		plain bool
		r     reconcile.Reconciler
		want  result
	}{
		"lanes":                                 {r: normalRequeues(resync), want: result{ChangeServedAs: 1, RequeuedPriority: NormalPriority, ChangeTurns: 1, ListedServedAs: 21}},
		"broken: the builder's handler alone":   {plain: true, r: normalRequeues(resync), want: result{ChangeServedAs: 101, RequeuedPriority: NormalPriority, ChangeTurns: 1, ListedServedAs: -1}},
		"a first try that waits keeps the lane": {r: normalRequeues(waitOnce("changed")), want: result{ChangeServedAs: 1, RequeuedPriority: SpecChangePriority, ChangeTurns: 2, ListedServedAs: 21}},
		"broken: requeues keep the lane":        {r: resync, want: result{ChangeServedAs: 1, RequeuedPriority: SpecChangePriority, ChangeTurns: 101, ListedServedAs: -1}},
	} {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, run(t, tc.plain, tc.r)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestNormalRequeues: a result naming no priority is requeued in the normal lane, keepLane's
// at the priority it was handed out with (none named), another priority as it is.
func TestNormalRequeues(t *testing.T) {
	for name, tc := range map[string]struct {
		res  reconcile.Result
		want *int
	}{
		"none named": {reconcile.Result{RequeueAfter: time.Minute}, ptr.To(NormalPriority)},
		"keepLane":   {keepLane(time.Second), nil},
		"named":      {reconcile.Result{Priority: ptr.To(5)}, ptr.To(5)},
	} {
		t.Run(name, func(t *testing.T) {
			got, _ := normalRequeues(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
				return tc.res, nil
			})).Reconcile(context.Background(), reconcile.Request{})
			if diff := cmp.Diff(tc.want, got.Priority); diff != "" {
				t.Errorf("priority (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUpdateLane: what a user asks for (a generation, a deletion) is a spec change; status,
// metadata and resyncs are not.
func TestUpdateLane(t *testing.T) {
	deleting := laneObject("a", 1)
	deleting.DeletionTimestamp = ptr.To(metav1.Now())
	relabelled := laneObject("a", 1)
	relabelled.Labels = map[string]string{"x": "y"}
	for name, tc := range map[string]struct {
		old, new client.Object
		want     int
	}{
		"generation":         {laneObject("a", 1), laneObject("a", 2), SpecChangePriority},
		"deletion requested": {laneObject("a", 1), deleting, SpecChangePriority},
		"still deleting":     {deleting, deleting, NormalPriority},
		"labels":             {laneObject("a", 1), relabelled, NormalPriority},
		"resync":             {laneObject("a", 1), laneObject("a", 1), NormalPriority},
		"no old object":      {nil, laneObject("a", 1), NormalPriority},
	} {
		t.Run(name, func(t *testing.T) {
			if got := updateLane(tc.old, tc.new); got != tc.want {
				t.Errorf("updateLane = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestEnqueueOnPlainQueue: on a queue without priorities the lane handler still enqueues.
func TestEnqueueOnPlainQueue(t *testing.T) {
	q := workqueue.NewTypedRateLimitingQueue(retryLimiter())
	defer q.ShutDown()
	specLane{}.Update(context.Background(), event.UpdateEvent{ObjectOld: laneObject("a", 1), ObjectNew: laneObject("a", 2)}, q)
	if q.Len() != 1 {
		t.Fatalf("queue holds %d items, want 1", q.Len())
	}
}
