package fleet

import (
	"context"
	"fmt"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// eventsSince counts the Events of the fleet's namespace written at or after since, by type
// and reason ("Warning JobManagerUnreachable"): what the operator had to say while the fleet
// was meant to be quiet. The operator's recorder (client-go's events.k8s.io broadcaster)
// creates an Event when it first occurs and writes a recurring one as a series only when the
// series starts (its second occurrence), every 30 minutes, and 6 minutes after its last
// occurrence: a series counts when it was written in the window, once.
func (f *fleet) eventsSince(ctx context.Context, since time.Time) (map[string]int64, error) {
	var l eventsv1.EventList
	if err := f.env.Client.List(ctx, &l, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	return countEvents(l.Items, since), nil
}

// countEvents counts events that first occurred at or after since (their eventTime, else
// their creation), and those whose series was last written then, by type and reason.
func countEvents(events []eventsv1.Event, since time.Time) map[string]int64 {
	out := map[string]int64{}
	for _, e := range events {
		first := e.EventTime.Time // creationTimestamp has whole seconds
		if first.IsZero() {
			first = e.CreationTimestamp.Time
		}
		recent := !first.Before(since) || (e.Series != nil && !e.Series.LastObservedTime.Time.Before(since))
		if recent {
			out[e.Type+" "+e.Reason]++
		}
	}
	return out
}
