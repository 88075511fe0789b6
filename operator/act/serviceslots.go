package act

import (
	"fmt"
	"hash/fnv"
	"time"

	"golang.org/x/sync/semaphore"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// RetryLaterError is returned when an action cannot start now because every slot it needs is
// taken. Nothing failed: the reconcile is tried again After, with no error and no Event.
type RetryLaterError struct {
	// What was refused.
	What string
	// After is when to try again.
	After time.Duration
}

func (r *RetryLaterError) Error() string { return fmt.Sprintf("%s: try again in %s", r.What, r.After) }

// DefaultServiceSlots is how many Services that get a cluster IP the operator creates at once.
const DefaultServiceSlots = 8

// Back-off of a Service create refused for want of a slot: serviceRetryBase after the first
// refusal, doubling with each refusal in a row, at most serviceRetryMax.
const (
	serviceRetryBase = 250 * time.Millisecond
	serviceRetryMax  = 30 * time.Second
)

// ServiceSlots bound the creates of Services that get a cluster IP (the REST Service; headless
// Services take none) under way at once. kube-apiserver allocates cluster IPs one at a time:
// its allocator holds a lock across the write of each IPAddress object, so a Service create
// waits for every create queued before it. Beyond a few at once, more concurrent creates add
// only waiting (measured on kube-apiserver v1.37: about 120 creates/s with 4 at once, 80/s
// with 256 at once, p50 29 ms and 3.1 s). A create still queued at the API server's request
// timeout is answered 504 but keeps its place in the queue, and its retry queues again: with
// thousands of deployments starting at once, Service creates stop completing altogether. A
// bounded number in flight keeps the queue short; a refused create is retried with a
// per-Service back-off, spread by the Service's name so that refused creates do not return
// all at once.
type ServiceSlots struct {
	sem     *semaphore.Weighted
	backoff workqueue.TypedRateLimiter[types.NamespacedName]
}

// NewServiceSlots returns n slots (DefaultServiceSlots when n <= 0).
func NewServiceSlots(n int) *ServiceSlots {
	if n <= 0 {
		n = DefaultServiceSlots
	}
	return &ServiceSlots{
		sem:     semaphore.NewWeighted(int64(n)),
		backoff: workqueue.NewTypedItemExponentialFailureRateLimiter[types.NamespacedName](serviceRetryBase, serviceRetryMax),
	}
}

// take takes a slot for creating obj when obj is a Service that gets a cluster IP; the
// returned function gives it back. A *RetryLaterError when every slot is taken.
func (s *ServiceSlots) take(obj client.Object) (func(), error) {
	svc, ok := obj.(*corev1.Service)
	if s == nil || !ok || svc.Spec.ClusterIP == corev1.ClusterIPNone {
		return func() {}, nil
	}
	key := client.ObjectKeyFromObject(svc)
	if !s.sem.TryAcquire(1) {
		return nil, &RetryLaterError{What: "every Service create slot is taken", After: spread(key, s.backoff.When(key))}
	}
	s.backoff.Forget(key)
	return func() { s.sem.Release(1) }, nil
}

// Forget drops the back-off of a FlinkDeployment's Services (the deployment is gone).
func (s *ServiceSlots) Forget(key types.NamespacedName) {
	if s != nil {
		s.backoff.Forget(types.NamespacedName{Namespace: key.Namespace, Name: RESTServiceName(key.Name)})
	}
}

// spread scales d by a factor in [0.75, 1.25) fixed by key: the same key always waits the
// same, different keys spread out (deterministic, no random source needed).
func spread(key types.NamespacedName, d time.Duration) time.Duration {
	h := fnv.New32a()
	_, _ = h.Write([]byte(key.String()))
	return d * time.Duration(750+h.Sum32()%500) / 1000
}
