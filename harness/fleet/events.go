package fleet

import (
	"context"
	"fmt"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// eventsSince counts the Events of the fleet's namespace that were created, or recurred as a
// series, at or after since, by type and reason ("Warning JobManagerUnreachable"): what the
// operator had to say while the fleet was meant to be quiet.
func (f *fleet) eventsSince(ctx context.Context, since time.Time) (map[string]int64, error) {
	var l eventsv1.EventList
	if err := f.env.Client.List(ctx, &l, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	return countEvents(l.Items, since), nil
}

// countEvents counts events created at or after since, and those whose series was last
// observed then, by type and reason.
func countEvents(events []eventsv1.Event, since time.Time) map[string]int64 {
	out := map[string]int64{}
	for _, e := range events {
		recent := !e.CreationTimestamp.Time.Before(since) ||
			(e.Series != nil && !e.Series.LastObservedTime.Time.Before(since))
		if recent {
			out[e.Type+" "+e.Reason]++
		}
	}
	return out
}
