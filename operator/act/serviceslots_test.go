package act

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
)

func service(name string, headless bool) *corev1.Service {
	s := &corev1.Service{}
	s.Namespace, s.Name = "team-a", name
	s.Spec.Ports = []corev1.ServicePort{{Port: 8081}}
	if headless {
		s.Spec.ClusterIP = corev1.ClusterIPNone
	}
	return s
}

// With every slot taken by a create that the API server has not answered, the create of
// another Service that needs a cluster IP is refused at once with a back-off that doubles per
// refusal and restarts after a create; a headless Service needs no slot; a released slot is
// free again.
func TestServiceSlots(t *testing.T) {
	inFlight, answer := make(chan struct{}), make(chan struct{})
	c := interceptor.NewClient(fake.NewClientBuilder().Build(), interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if obj.GetName() == "slow-rest" {
				close(inFlight)
				<-answer
			}
			return c.Create(ctx, obj, opts...)
		},
	})
	e := &Executor{Client: c, ServiceSlots: NewServiceSlots(1)}
	ctx := context.Background()
	slow := make(chan error)
	go func() { slow <- e.apply(ctx, service("slow-rest", false)) }()
	<-inFlight

	refusals := []time.Duration{}
	for range 3 {
		err := e.apply(ctx, service("b-rest", false))
		var later *RetryLaterError
		if !errors.As(err, &later) {
			t.Fatalf("create with no free slot: err = %v, want *RetryLaterError", err)
		}
		refusals = append(refusals, later.After)
	}
	if err := e.apply(ctx, service("b", true)); err != nil {
		t.Fatalf("headless Service with no free slot: %v", err)
	}
	close(answer)
	if err := <-slow; err != nil {
		t.Fatalf("the slow create: %v", err)
	}
	if err := e.apply(ctx, service("b-rest", false)); err != nil {
		t.Fatalf("create with a free slot: %v", err)
	}

	first := spread(types.NamespacedName{Namespace: "team-a", Name: "b-rest"}, serviceRetryBase)
	want := []time.Duration{first, 2 * first, 4 * first}
	for i := range want {
		if refusals[i] != want[i] {
			t.Errorf("refusal %d waits %s, want %s (all: %v)", i+1, refusals[i], want[i], refusals)
		}
	}
	if first < serviceRetryBase*3/4 || first >= serviceRetryBase*5/4 {
		t.Errorf("first wait %s, want within ±25%% of %s", first, serviceRetryBase)
	}
	if e.ServiceSlots.backoff.NumRequeues(types.NamespacedName{Namespace: "team-a", Name: "b-rest"}) != 0 {
		t.Error("the back-off of a created Service is kept, want it forgotten")
	}
}

// Different Services that are refused at the same moment come back at different times.
func TestServiceSlotsSpreadRetries(t *testing.T) {
	seen := map[time.Duration]bool{}
	for _, name := range []string{"a-rest", "b-rest", "c-rest", "d-rest", "e-rest"} {
		seen[spread(types.NamespacedName{Namespace: "ns", Name: name}, time.Second)] = true
	}
	if len(seen) < 4 {
		t.Errorf("5 Services wait %d distinct times, want them spread", len(seen))
	}
}

// Forgetting a deleted FlinkDeployment drops the back-off of its REST Service.
func TestServiceSlotsForget(t *testing.T) {
	s := NewServiceSlots(1)
	release, err := s.take(service("a-rest", false))
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if _, err := s.take(service("b-rest", false)); err == nil {
		t.Fatal("a second create with one slot was let through")
	}
	key := types.NamespacedName{Namespace: "team-a", Name: "b-rest"}
	if s.backoff.NumRequeues(key) != 1 {
		t.Fatalf("refusals of b-rest = %d, want 1", s.backoff.NumRequeues(key))
	}
	s.Forget(types.NamespacedName{Namespace: "team-a", Name: "b"})
	if n := s.backoff.NumRequeues(key); n != 0 {
		t.Errorf("refusals of b-rest after its deployment was forgotten = %d, want 0", n)
	}
}

// ownedService is the REST Service of FlinkDeployment owner.
func ownedService(owner string) *corev1.Service {
	s := service(RESTServiceName(owner), false)
	s.OwnerReferences = []metav1.OwnerReference{{APIVersion: "flink.apache.org/v1beta1", Kind: "FlinkDeployment", Name: owner, UID: "u-" + types.UID(owner), Controller: ptr.To(true)}}
	return s
}

// Owners refused a slot wait in line, once each: a freed slot wakes the one refused longest
// ago; one woken that finds its slot taken is first in line again; a forgotten owner is not
// woken, and one woken and then forgotten passes its turn on; and once wake-ups are on, the
// back-off only covers a lost one.
func TestServiceSlotsWakeInOrder(t *testing.T) {
	s := NewServiceSlots(1)
	var woken []string
	s.OnFree(func(owner types.NamespacedName) { woken = append(woken, owner.Name) })
	take := func(owner string) func() {
		t.Helper()
		release, err := s.take(ownedService(owner))
		if err != nil {
			t.Fatalf("%s: %v, want a slot", owner, err)
		}
		return release
	}
	refuse := func(owner string) {
		t.Helper()
		if _, err := s.take(ownedService(owner)); !errors.As(err, new(*RetryLaterError)) {
			t.Fatalf("%s: err = %v, want *RetryLaterError", owner, err)
		}
	}
	releaseA := take("a")
	refuse("b")
	refuse("c")
	refuse("b") // still one place in line
	releaseA()  // wakes b
	releaseX := take("x")
	refuse("b") // woken, but x took the slot: b is first in line again, before c
	refuse("d")
	releaseX()  // wakes b
	take("b")() // and its release wakes c
	releaseD := take("d")
	refuse("e")
	s.Forget(types.NamespacedName{Namespace: "team-a", Name: "e"})
	_, err := s.take(ownedService("f"))
	var later *RetryLaterError
	if !errors.As(err, &later) || later.After < wakeRetryBase*3/4 {
		t.Errorf("a first refusal with wake-ups on: %v, want a retry after %s or so", err, wakeRetryBase)
	}
	for range 20 {
		refuse("f")
	}
	_, err = s.take(ownedService("f"))
	if !errors.As(err, &later) || later.After <= serviceRetryMax {
		t.Errorf("after 22 refusals with wake-ups on: %v, want a retry after over %s (up to %s)", err, serviceRetryMax, wakeRetryMax)
	}
	s.Forget(types.NamespacedName{Namespace: "team-a", Name: "f"})
	releaseD() // d was served; e and f are forgotten: nobody to wake
	releaseG := take("g")
	refuse("h")
	refuse("i")
	releaseG()                                                       // wakes h
	s.Returned(types.NamespacedName{Namespace: "team-a", Name: "h"}) // h came back without asking: its turn passes to i
	if last := woken[len(woken)-1]; last != "i" {
		t.Errorf("after h came back without a create, last woken %q, want i", last)
	}
	releaseJ := take("j")
	refuse("k")
	releaseJ() // wakes k
	releaseM := take("m")
	s.Returned(types.NamespacedName{Namespace: "team-a", Name: "k"}) // no slot free: nothing to pass on
	releaseM()                                                       // k left the line when woken: nobody to wake
	releaseP := take("p")
	refuse("q")
	refuse("r")
	releaseP()                                                     // wakes q
	s.Forget(types.NamespacedName{Namespace: "team-a", Name: "q"}) // q is deleted before its reconcile: its turn passes to r
	if diff := cmp.Diff([]string{"b", "b", "c", "h", "i", "k", "q", "r"}, woken); diff != "" {
		t.Errorf("woken (-want +got):\n%s", diff)
	}
}

// A place left in line by an owner served meanwhile is skipped: the owner queues anew when
// it joins again.
func TestSlotLineTickets(t *testing.T) {
	a, b := types.NamespacedName{Name: "a"}, types.NamespacedName{Name: "b"}
	l := newSlotLine(nil)
	l.join(a, false)
	l.join(b, false)
	l.leave(a) // a got a slot on its own retry
	l.join(a, false)
	var order []string
	for owner, ok := l.wakeNext(nil); ok; owner, ok = l.wakeNext(nil) {
		order = append(order, owner.Name)
	}
	if diff := cmp.Diff([]string{"b", "a"}, order); diff != "" {
		t.Errorf("woken (-want +got):\n%s", diff)
	}
}

// A deploy that will create its REST Service while every slot is taken is refused before it
// writes anything, and its owner waits in line; with the REST Service there (a redeploy) it
// needs no slot and goes on.
func TestDeployAsksForASlotFirst(t *testing.T) {
	c := fake.NewClientBuilder().Build()
	var woken []string
	e := &Executor{Client: c, Reader: c, ServiceSlots: NewServiceSlots(1), HASelector: func(d *flinkv1beta1.FlinkDeployment) client.MatchingLabels {
		return client.MatchingLabels{LabelApp: d.Name, "configmap-type": "high-availability"}
	}}
	e.ServiceSlots.OnFree(func(owner types.NamespacedName) { woken = append(woken, owner.Name) })
	release, err := e.ServiceSlots.take(ownedService("x"))
	if err != nil {
		t.Fatal(err)
	}
	d := fixtures.Deployment("team-a", "a")
	d.UID = "u-a"
	deploy := &decide.Deploy{Spec: d.Spec, Generation: 1}
	if err := e.deploy(t.Context(), d, deploy); !errors.As(err, new(*RetryLaterError)) {
		t.Fatalf("deploy with no free slot: %v, want *RetryLaterError", err)
	}
	var cms corev1.ConfigMapList
	var svcs corev1.ServiceList
	if err := c.List(t.Context(), &cms); err != nil {
		t.Fatal(err)
	}
	if err := c.List(t.Context(), &svcs); err != nil {
		t.Fatal(err)
	}
	if len(cms.Items)+len(svcs.Items) != 0 {
		t.Errorf("a refused deploy wrote %d ConfigMaps and %d Services, want none", len(cms.Items), len(svcs.Items))
	}
	release()
	if diff := cmp.Diff([]string{"a"}, woken); diff != "" {
		t.Fatalf("woken (-want +got):\n%s", diff)
	}
	if err := e.deploy(t.Context(), d, deploy); err != nil {
		t.Fatalf("woken deploy: %v", err)
	}
	release, err = e.ServiceSlots.take(ownedService("y"))
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	deploy.Generation = 2
	if err := e.deploy(t.Context(), d, deploy); err != nil {
		t.Errorf("redeploy with its REST Service there and no free slot: %v", err)
	}
}
