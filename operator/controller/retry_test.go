package controller

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// TestRetryLimiter: a resource that keeps failing waits at most RetryMaxDelay, however often
// it failed, and other resources' failures do not slow it (no fleet-wide bucket: the
// thousandth resource to fail at once is retried as soon as the first).
func TestRetryLimiter(t *testing.T) {
	l := retryLimiter()
	req := func(i int) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))}}
	}
	var last time.Duration
	for range 40 {
		last = l.When(req(0))
	}
	if last != RetryMaxDelay {
		t.Errorf("after 40 failures in a row the retry waits %s, want %s", last, RetryMaxDelay)
	}
	for i := 1; i <= 1000; i++ {
		if d := l.When(req(i)); d != RetryBaseDelay {
			t.Fatalf("the %d-th resource's first failure waits %s, want %s", i, d, RetryBaseDelay)
		}
	}
	l.Forget(req(0))
	if d := l.When(req(0)); d != RetryBaseDelay {
		t.Errorf("after a success the next failure waits %s, want %s", d, RetryBaseDelay)
	}
}

// TestQueueServesInArrivalOrder: the controllers' queue hands out a resource listed at
// start-up while other resources keep getting work; controller-runtime's priority queue, which
// queueOptions turns off, keeps it waiting behind all of them (the broken variant).
func TestQueueServesInArrivalOrder(t *testing.T) {
	if opts := queueOptions(0); opts.UsePriorityQueue == nil || *opts.UsePriorityQueue {
		t.Fatal("the controllers use controller-runtime's priority queue")
	}
	req := func(name string) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}}
	}
	// served reports after how many items the one listed at start-up came out, with 20 busy
	// resources each queued again as soon as it is handed out.
	served := func(add func(r reconcile.Request, listed bool), get func() reconcile.Request) int {
		add(req("listed"), true)
		for i := range 20 {
			add(req(fmt.Sprint("busy-", i)), false)
		}
		for n := 1; n <= 200; n++ {
			r := get()
			if r.Name == "listed" {
				return n
			}
			add(r, false)
		}
		return -1
	}
	fifo := workqueue.NewTypedRateLimitingQueue(retryLimiter())
	defer fifo.ShutDown()
	got := served(func(r reconcile.Request, _ bool) { fifo.Add(r) }, func() reconcile.Request {
		r, _ := fifo.Get()
		fifo.Done(r)
		return r
	})
	if got != 1 {
		t.Errorf("the controllers' queue handed out the listed resource as item %d, want 1", got)
	}
	pq := priorityqueue.New[reconcile.Request]("test")
	defer pq.ShutDown()
	got = served(func(r reconcile.Request, listed bool) {
		prio := 0
		if listed {
			prio = handler.LowPriority
		}
		pq.AddWithOpts(priorityqueue.AddOpts{Priority: &prio}, r)
	}, func() reconcile.Request {
		r, _ := pq.Get()
		pq.Done(r)
		return r
	})
	if got != -1 {
		t.Errorf("the priority queue handed out the listed resource as item %d; the reason for turning it off is gone", got)
	}
}
