package controller

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/scheme"
)

// sink keeps the Events a broadcaster writes: created ones, and each repeat's count.
type sink struct {
	mu      sync.Mutex
	created []string
	patches int
}

func (s *sink) Create(e *corev1.Event) (*corev1.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.created = append(s.created, e.Type+" "+e.Reason+" "+e.Source.Component)
	return e, nil
}

func (s *sink) Update(e *corev1.Event) (*corev1.Event, error) { return e, nil }

func (s *sink) Patch(e *corev1.Event, _ []byte) (*corev1.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.patches++
	return e, nil
}

func (s *sink) seen() ([]string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.created...), s.patches
}

// A chatty reason is rate limited on its own: after its burst, another reason of the same
// object and type is still recorded (client-go's default bucket, without the reason, would
// drop it), and a repeated Event is counted on the first one, not created again.
func TestEventRecorderLimitsEachReason(t *testing.T) {
	b := newBroadcaster()
	s := &sink{}
	b.StartRecordingToSink(s)
	defer b.Shutdown()
	rec := b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: EventSource})
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "u"}}
	for i := range 40 {
		rec.Event(pod, corev1.EventTypeNormal, "Tick", fmt.Sprintf("tick %d", i%2))
	}
	rec.Event(pod, corev1.EventTypeNormal, "Failed", "the rare one")
	var created []string
	var patches int
	err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		created, patches = s.seen()
		return len(created) > 0 && created[len(created)-1] == "Normal Failed flinkop", nil
	})
	if err != nil {
		t.Fatalf("the rare reason was not recorded after a chatty one: created %v", created)
	}
	if len(created) != 3 || patches != 23 {
		t.Errorf("created %v and %d repeats; want the two Tick messages and Failed created, the rest of Tick's burst of 25 counted on them", created, patches)
	}
}
