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
// was meant to be quiet. The operator's recorder (client-go's core/v1 broadcaster) creates an
// Event when it first occurs and counts each repeat on it (count, lastTimestamp); client-go's
// events.k8s.io broadcaster writes a recurring one as a series. Either counts once when it
// was created or repeated in the window.
func (f *fleet) eventsSince(ctx context.Context, since time.Time) (map[string]int64, error) {
	var l eventsv1.EventList
	if err := f.env.Client.List(ctx, &l, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	return countEvents(l.Items, since), nil
}

// countEvents counts events that first occurred at or after since (their eventTime, else
// their creation), and those repeated then (their series, or their core/v1 lastTimestamp), by
// type and reason. Whole-second timestamps count from since's second: an Event of that second
// counts, even from just before since.
func countEvents(events []eventsv1.Event, since time.Time) map[string]int64 {
	out := map[string]int64{}
	second := since.Truncate(time.Second)
	for _, e := range events {
		recent := !e.EventTime.Time.Before(since)
		if e.EventTime.IsZero() {
			recent = !e.CreationTimestamp.Time.Before(second)
		}
		if e.Series != nil && !e.Series.LastObservedTime.Time.Before(since) {
			recent = true
		}
		if e.DeprecatedCount > 1 && !e.DeprecatedLastTimestamp.Time.Before(second) {
			recent = true
		}
		if recent {
			out[e.Type+" "+e.Reason]++
		}
	}
	return out
}
