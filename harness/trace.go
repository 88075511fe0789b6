package harness

import (
	"fmt"
	"strings"
	"time"
)

// Trace is the timeline of a run: spec changes, faults, actions, states and events.
type Trace struct {
	start   time.Time
	Entries []Entry
}

// Entry is one line of a trace.
type Entry struct {
	Time     time.Time
	Kind     string // spec, fault, event, state, error, violation
	Resource string
	Text     string
}

func (t *Trace) add(at time.Time, kind, resource, text string) {
	t.Entries = append(t.Entries, Entry{Time: at, Kind: kind, Resource: resource, Text: text})
}

// Add appends an entry.
func (t *Trace) Add(at time.Time, kind, resource, text string) { t.add(at, kind, resource, text) }

// String renders the trace as text, one entry a line, with virtual time since the start.
func (t *Trace) String() string {
	var b strings.Builder
	for _, e := range t.Entries {
		fmt.Fprintf(&b, "%9s  %-9s %-12s %s\n", e.Time.Sub(t.start).Truncate(time.Millisecond), e.Kind, e.Resource, e.Text)
	}
	return b.String()
}
