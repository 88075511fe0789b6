package controller

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
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
