package controller

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
)

// EventCacheSize bounds each of the operator's Event caches (the correlator's aggregation,
// repeat-count and rate-limit records): 4,096 entries, a few MB at most, however many
// resources the operator runs.
const EventCacheSize = 4096

// EventSource is the component the operator's Events name as their source and reporting
// controller.
const EventSource = "flinkop"

// NewEventRecorder returns the recorder of the operator's Events: client-go's core/v1
// broadcaster (tools/record), writing through the manager's HTTP client, stopped with the
// manager.
//
// Not the events.k8s.io broadcaster the manager offers (tools/events): that one keeps every
// Event it recorded for 6 to 12 minutes to find series, without bound, so a fleet's upgrade
// wave (10,000 deployments, a few Events each) held tens of MB. This one's caches are LRUs of
// EventCacheSize entries, and recording never blocks a reconcile: an Event that finds the
// broadcaster's queue (1,000) full is dropped. The API server keeps both APIs' Events as one
// resource, so kubectl get events and kubectl describe show them alike. As every core/v1
// recorder does, it counts a repeated Event on the first one (count, lastTimestamp); ten Events
// of one object and reason within 10 minutes that differ in message become one "(combined
// from similar events)"; and an object's Events of one type and reason beyond a burst of 25
// are limited to one per 5 minutes (status and metrics still tell every change).
func NewEventRecorder(mgr ctrl.Manager) (EventRecorder, error) {
	cs, err := kubernetes.NewForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
	if err != nil {
		return nil, fmt.Errorf("event recorder: %w", err)
	}
	b := newBroadcaster()
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: cs.CoreV1().Events("")})
	stop := EveryReplica(func(ctx context.Context) error {
		<-ctx.Done()
		b.Shutdown()
		return nil
	})
	if err := mgr.Add(stop); err != nil {
		b.Shutdown()
		return nil, fmt.Errorf("event recorder: %w", err)
	}
	return b.NewRecorder(mgr.GetScheme(), corev1.EventSource{Component: EventSource}), nil
}

// EveryReplica is a manager runnable that runs on every replica, leader or not. The manager
// stops such runnables after the reconcilers: the Event broadcaster is one, so the
// reconcilers' last Events are still recorded.
type EveryReplica func(context.Context) error

// Start runs f until ctx ends.
func (f EveryReplica) Start(ctx context.Context) error { return f(ctx) }

// NeedLeaderElection is false: it runs without the lease.
func (EveryReplica) NeedLeaderElection() bool { return false }

// events is the recorder of the reconcilers built for mgr: s.Events, else a new
// NewEventRecorder.
func (s Setup) events(mgr ctrl.Manager) EventRecorder {
	if s.Events != nil {
		return s.Events
	}
	rec, err := NewEventRecorder(mgr)
	if err != nil {
		ctrl.Log.WithName("events").Error(err, "recording Events through the events.k8s.io API instead")
		return eventsAPI{mgr.GetEventRecorder(EventSource)}
	}
	return rec
}

// newBroadcaster is a core/v1 broadcaster with the operator's correlator options.
func newBroadcaster() record.EventBroadcaster {
	return record.NewBroadcaster(record.WithCorrelatorOptions(record.CorrelatorOptions{
		LRUCacheSize: EventCacheSize,
		SpamKeyFunc:  spamKey,
	}))
}

// spamKey is the rate limiter's bucket of an Event: its object, type and reason. client-go's
// default has no reason, so a chatty reason (a periodic savepoint's) would silence the rare
// ones (a failure's) of the same object.
func spamKey(e *corev1.Event) string {
	o := e.InvolvedObject
	return strings.Join([]string{
		e.Source.Component, o.APIVersion, o.Kind, o.Namespace, o.Name, string(o.UID), e.Type, e.Reason,
	}, "/")
}
