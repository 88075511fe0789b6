package act

import (
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
// refusal, doubling with each refusal in a row, at most serviceRetryMax; or, once freed slots
// wake the waiters (OnFree), from wakeRetryBase up to wakeRetryMax. The back-off then only
// covers a wake-up that was dropped and a woken owner beaten to the slot while none was free
// to pass its turn on: a retry before its wake-up finds every slot taken, or takes the slot
// of the owner woken for it, which then waits again. At 5,000 deployments starting at once,
// a back-off from serviceRetryBase made ten refused reconciles per deployment.
const (
	serviceRetryBase = 250 * time.Millisecond
	serviceRetryMax  = 30 * time.Second
	wakeRetryBase    = 5 * time.Second
	wakeRetryMax     = 2 * time.Minute
)

// ServiceSlots bound the creates of Services that get a cluster IP (the REST Service; headless
// Services take none) under way at once. kube-apiserver allocates cluster IPs one at a time:
// its allocator holds a lock across the write of each IPAddress object, so a Service create
// waits for every create queued before it. Beyond a few at once, more concurrent creates add
// only waiting (measured on kube-apiserver v1.37: about 120 creates/s with 4 at once, 80/s
// with 256 at once, p50 29 ms and 3.1 s). A create still queued at the API server's request
// timeout is answered 504 but keeps its place in the queue, and its retry queues again: with
// thousands of deployments starting at once, Service creates stop completing altogether. A
// bounded number in flight keeps the queue short. A refused create is retried with a
// per-Service back-off, spread by the Service's name so that refused creates do not return
// all at once; and its owner waits in line (slotLine): each slot freed wakes the owner first
// in line (OnFree), so slots do not idle while the refused wait out their back-off (at 10,000
// deployments, 176,000 refusals in 10 minutes kept 8 slots about 10 creates a second busy,
// and the refused reconciles were most of the operator's CPU).
type ServiceSlots struct {
	n       int
	backoff workqueue.TypedRateLimiter[types.NamespacedName]

	mu    sync.Mutex
	inUse int
	line  slotLine
	wake  func(owner types.NamespacedName)
}

// NewServiceSlots returns n slots (DefaultServiceSlots when n <= 0).
func NewServiceSlots(n int) *ServiceSlots {
	if n <= 0 {
		n = DefaultServiceSlots
	}
	return &ServiceSlots{
		n:       n,
		backoff: workqueue.NewTypedItemExponentialFailureRateLimiter[types.NamespacedName](serviceRetryBase, serviceRetryMax),
		line:    newSlotLine(nil),
	}
}

// OnFree makes each freed slot call wake with the owner (the FlinkDeployment) first in line,
// which should then be reconciled at once, and calls Returned when that reconcile is over;
// the back-off of a refused create then runs from wakeRetryBase to wakeRetryMax. wake must not block. Call
// it before the slots are used.
func (s *ServiceSlots) OnFree(wake func(owner types.NamespacedName)) {
	if s == nil {
		return
	}
	s.wake = wake
	s.backoff = workqueue.NewTypedItemExponentialFailureRateLimiter[types.NamespacedName](wakeRetryBase, wakeRetryMax)
}

// take takes a slot for creating obj when obj is a Service that gets a cluster IP; the
// returned function gives it back. A *RetryLaterError when every slot is taken: obj's owner
// then waits in line (at the front when it was woken for a slot someone else took).
func (s *ServiceSlots) take(obj client.Object) (func(), error) {
	svc, ok := obj.(*corev1.Service)
	if s == nil || !ok || svc.Spec.ClusterIP == corev1.ClusterIPNone {
		return func() {}, nil
	}
	key, owner := client.ObjectKeyFromObject(svc), ownerOf(svc)
	s.mu.Lock()
	woken := s.line.comeBack(owner)
	if s.inUse >= s.n {
		s.line.join(owner, woken)
		s.mu.Unlock()
		return nil, s.refusal(key)
	}
	s.inUse++
	s.line.leave(owner)
	s.mu.Unlock()
	s.backoff.Forget(key)
	return s.release, nil
}

// refuseWhileFull refuses the create of owner's Service key, as take would, while every slot
// is taken, and takes no slot otherwise (nor changes anything: take will). A deploy that will
// create its REST Service asks before it renders and applies anything, so a refused reconcile
// costs little: at 10,000 deployments most reconciles while converging are refused ones.
func (s *ServiceSlots) refuseWhileFull(key, owner types.NamespacedName) error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	if s.inUse < s.n {
		s.mu.Unlock()
		return nil
	}
	s.line.join(owner, s.line.comeBack(owner))
	s.mu.Unlock()
	return s.refusal(key)
}

// refusal is the error of a refused create of Service key, with its back-off.
func (s *ServiceSlots) refusal(key types.NamespacedName) error {
	return &RetryLaterError{What: "every Service create slot is taken", After: spread(key, s.backoff.When(key))}
}

// release gives a slot back and wakes the owner first in line.
func (s *ServiceSlots) release() {
	s.mu.Lock()
	s.inUse--
	next, found := s.line.wakeNext(nil)
	s.mu.Unlock()
	s.wakeUp(next, found)
}

// Returned tells the slots that a reconcile of owner is over. An owner woken for a slot that
// came back without asking for one (its reconcile stopped short, or its action needs no
// Service now) passes its turn to the next in line while a slot is free.
func (s *ServiceSlots) Returned(owner types.NamespacedName) {
	if s == nil {
		return
	}
	s.mu.Lock()
	next, found := s.passTurn(owner)
	s.mu.Unlock()
	s.wakeUp(next, found)
}

// passTurn takes the next owner in line out of it, to be woken, when owner was woken for a
// slot and a slot is free; the caller holds mu.
func (s *ServiceSlots) passTurn(owner types.NamespacedName) (types.NamespacedName, bool) {
	if s.line.comeBack(owner) && s.inUse < s.n {
		return s.line.wakeNext(nil)
	}
	return types.NamespacedName{}, false
}

func (s *ServiceSlots) wakeUp(owner types.NamespacedName, found bool) {
	if found && s.wake != nil {
		s.wake(owner)
	}
}

// ownerOf is the resource a Service belongs to: its controller, else the Service itself.
func ownerOf(svc *corev1.Service) types.NamespacedName {
	if ref := metav1.GetControllerOf(svc); ref != nil {
		return types.NamespacedName{Namespace: svc.Namespace, Name: ref.Name}
	}
	return client.ObjectKeyFromObject(svc)
}

// Forget drops the back-off and the place in line of a FlinkDeployment's Services (the
// deployment is gone). One woken for a free slot passes its turn to the next in line, as
// Returned would: it will not come back for it.
func (s *ServiceSlots) Forget(key types.NamespacedName) {
	if s == nil {
		return
	}
	s.backoff.Forget(types.NamespacedName{Namespace: key.Namespace, Name: RESTServiceName(key.Name)})
	s.mu.Lock()
	next, found := s.passTurn(key) // a woken owner is out of line: it cannot be next
	s.line.leave(key)
	s.mu.Unlock()
	s.wakeUp(next, found)
}

// spread scales d by a factor in [0.75, 1.25) fixed by key: the same key always waits the
// same, different keys spread out (deterministic, no random source needed).
func spread(key types.NamespacedName, d time.Duration) time.Duration {
	h := fnv.New32a()
	_, _ = h.Write([]byte(key.String()))
	return d * time.Duration(750+h.Sum32()%500) / 1000
}
