package harness

import (
	"fmt"
	"strings"
	"time"
)

// Trace is the timeline of a run: spec changes, faults, actions, states and events, and what
// the timeline draws besides them (state bands, the job's offset, snapshot markers).
type Trace struct {
	start   time.Time
	Entries []Entry
	// Header are lines the timeline shows at its top: the seed, the command that replays the run.
	Header []string
	// Bands are the intervals of each resource's state lanes (lifecycle, JobManager, job).
	Bands []Band
	// Points are the job offsets seen, per resource: fakeflink's record of the job's state.
	Points []Point
	// Marks are the snapshots completed and the states restored, per resource.
	Marks []Mark
	open  map[string]int // resource + lane → index of its open band
}

// Entry is one line of a trace.
type Entry struct {
	Time     time.Time
	Kind     string // spec, stage, fault, event, state, error, violation
	Resource string
	Text     string
}

// Band is one state of a resource's lane from From until To (zero: until the trace ends).
type Band struct {
	Resource, Lane, Value string
	From, To              time.Time
}

// Point is a job's offset (its state) at a time.
type Point struct {
	Resource string
	Time     time.Time
	Offset   int64
}

// Mark kinds: a completed checkpoint or savepoint, and a job start with the state it restored.
const (
	MarkCheckpoint = "checkpoint"
	MarkSavepoint  = "savepoint"
	MarkRestore    = "restore"
)

// Mark is a snapshot completed or a state restored, at the offset it holds.
type Mark struct {
	Resource, Kind, Text string
	Time                 time.Time
	Offset               int64
}

func (t *Trace) add(at time.Time, kind, resource, text string) {
	t.Entries = append(t.Entries, Entry{Time: at, Kind: kind, Resource: resource, Text: text})
}

// Add appends an entry.
func (t *Trace) Add(at time.Time, kind, resource, text string) { t.add(at, kind, resource, text) }

// State records that a resource's lane shows value from at on: the open band of the lane ends
// and a new one begins when the value changes ("" ends the band and begins none).
func (t *Trace) State(at time.Time, resource, lane, value string) {
	if t.open == nil {
		t.open = map[string]int{}
	}
	key := resource + "\x00" + lane
	if i, ok := t.open[key]; ok {
		if t.Bands[i].Value == value {
			return
		}
		t.Bands[i].To = at
		delete(t.open, key)
	}
	if value != "" {
		t.open[key] = len(t.Bands)
		t.Bands = append(t.Bands, Band{Resource: resource, Lane: lane, Value: value, From: at})
	}
}

// Offset records a job's offset at a time (the same offset as the last point of the resource
// is not repeated).
func (t *Trace) Offset(at time.Time, resource string, offset int64) {
	for i := len(t.Points) - 1; i >= 0; i-- {
		if t.Points[i].Resource == resource {
			if t.Points[i].Offset == offset && !t.Points[i].Time.After(at) {
				return
			}
			break
		}
	}
	t.Points = append(t.Points, Point{Resource: resource, Time: at, Offset: offset})
}

// Mark records a snapshot or a restore of a resource's job, at the offset it holds; it is also
// a point of the offset line.
func (t *Trace) Mark(at time.Time, resource, kind string, offset int64, text string) {
	t.Marks = append(t.Marks, Mark{Resource: resource, Kind: kind, Text: text, Time: at, Offset: offset})
	t.Points = append(t.Points, Point{Resource: resource, Time: at, Offset: offset})
}

// String renders the trace's entries as text, one a line, with virtual time since the start.
func (t *Trace) String() string {
	var b strings.Builder
	for _, e := range t.Entries {
		fmt.Fprintf(&b, "%9s  %-9s %-12s %s\n", e.Time.Sub(t.start).Truncate(time.Millisecond), e.Kind, e.Resource, e.Text)
	}
	return b.String()
}
