package workload

import (
	"fmt"
	"time"
)

// Vertex is one vertex of a job's chain: its name, and the records one of its subtasks
// processes per second while busy all the time.
type Vertex struct {
	Name     string
	Capacity float64
}

// Spec is a job's workload: its chain of vertices (the source first), its input, and how long
// it processes nothing after each (re)start while its tasks deploy and restore their state.
type Spec struct {
	Vertices    []Vertex
	Input       Schedule
	RestartTime time.Duration
}

// Capacity is the records per second the chain processes with parallelism p (one entry per
// vertex): its slowest vertex's, and the index of that vertex (the first of equals).
func (s Spec) Capacity(p []int) (float64, int) {
	best, at := -1.0, 0
	for i, v := range s.Vertices {
		if c := float64(p[i]) * v.Capacity; best < 0 || c < best {
			best, at = c, i
		}
	}
	return best, at
}

// Model is one run of a job over its workload. The zero value is not usable: see New.
type Model struct {
	spec Spec
	// began is when the input began; position the input consumed, runStart its position when
	// the current run (re)started.
	began              time.Time
	position, runStart float64
	// at is how far the model has advanced; down the end of the current restart.
	at, down time.Time
	// rate is the throughput over the last step, in records per second.
	rate float64
	// recent are the steps of the current run that processed in its last BusySpan of
	// processing, oldest first; recentSeconds their time.
	recent        []work
	recentSeconds float64
}

// work is one step of Advance that processed: its time, in seconds, and the records it moved.
type work struct{ seconds, moved float64 }

// BusySpan is the time Flink's busyTimeMsPerSecond averages over: its TimerGauge's default
// time span (12 updates of 5 s).
const BusySpan = time.Minute

// New starts a job at started, restored to position (the input it had consumed) of an input
// that began at began: it processes nothing for spec.RestartTime.
func New(spec Spec, began, started time.Time, position float64) *Model {
	return &Model{spec: spec, began: began, position: position, runStart: position, at: started, down: started.Add(spec.RestartTime)}
}

// Restart restarts the job at t (a failover or a rescale), having run with parallelism p
// until then: nothing is processed until t plus the restart time; the position is kept.
func (m *Model) Restart(t time.Time, p []int) error {
	if err := m.Advance(t, p); err != nil {
		return err
	}
	m.down, m.runStart = t.Add(m.spec.RestartTime), m.position
	m.recent, m.recentSeconds = nil, 0
	return nil
}

// AccumulatedBusyMs is the busy time vertex i's subtasks have spent in the current run, summed
// over them (Flink's accumulated-busy-time): each record costs one subtask 1/capacity seconds,
// whatever the parallelism.
func (m *Model) AccumulatedBusyMs(i int) float64 {
	return (m.position - m.runStart) / m.spec.Vertices[i].Capacity * 1000
}

// check refuses a parallelism that does not give every vertex at least one subtask.
func (m *Model) check(p []int) error {
	if len(p) != len(m.spec.Vertices) {
		return fmt.Errorf("parallelism of %d vertices for a chain of %d", len(p), len(m.spec.Vertices))
	}
	for i, n := range p {
		if n < 1 {
			return fmt.Errorf("vertex %d: parallelism %d, want at least 1", i, n)
		}
	}
	return nil
}

// Position is the input the job has consumed: the source's offset.
func (m *Model) Position() float64 { return m.position }

// Backlog is the input that arrived and was not yet consumed.
func (m *Model) Backlog() float64 {
	return max(m.spec.Input.Arrived(m.at.Sub(m.began))-m.position, 0)
}

// Advance runs the job up to now with parallelism p (one entry per vertex, each at least 1;
// nil: the job has no running tasks and processes nothing), in steps of at most a second.
func (m *Model) Advance(now time.Time, p []int) error {
	capacity := 0.0
	if p != nil {
		if err := m.check(p); err != nil {
			return err
		}
		capacity, _ = m.spec.Capacity(p)
	}
	for m.at.Before(now) {
		next := m.at.Add(min(time.Second, now.Sub(m.at)))
		dt := next.Sub(m.at).Seconds()
		moved := 0.0
		if working := next.Sub(maxTime(m.at, m.down)); working > 0 && capacity > 0 {
			arrived := m.spec.Input.Arrived(next.Sub(m.began))
			moved = max(min(m.position+capacity*working.Seconds(), arrived)-m.position, 0)
			m.remember(work{working.Seconds(), moved})
		}
		m.position += moved
		m.rate = moved / dt
		m.at = next
	}
	return nil
}

// remember keeps a step that processed, and forgets those older than BusySpan.
func (m *Model) remember(s work) {
	m.recent, m.recentSeconds = append(m.recent, s), m.recentSeconds+s.seconds
	for len(m.recent) > 1 && m.recentSeconds-m.recent[0].seconds >= BusySpan.Seconds() {
		m.recentSeconds -= m.recent[0].seconds
		m.recent = m.recent[1:]
	}
}

// BusyTimeMsPerSecond is vertex i's busyTimeMsPerSecond with parallelism p as Flink reports it:
// its TimerGauge averages the busy time over the last BusySpan, or over the time the current
// run has processed when that is shorter (0 before it processed at all). Unlike Metrics'
// busy time (the last step's), a sample of it every BusySpan sees all the time between them.
func (m *Model) BusyTimeMsPerSecond(i int, p []int) float64 {
	if m.recentSeconds <= 0 || p[i] < 1 {
		return 0
	}
	moved := 0.0
	for _, s := range m.recent {
		moved += s.moved
	}
	return min(1000*moved/m.recentSeconds/(float64(p[i])*m.spec.Vertices[i].Capacity), 1000)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// VertexMetrics are the metrics of one vertex over the last step, summed over its
// subtasks except the times, which are each subtask's (every subtask does the same share).
type VertexMetrics struct {
	BusyTimeMsPerSecond          float64
	BackPressuredTimeMsPerSecond float64
	IdleTimeMsPerSecond          float64
	NumRecordsInPerSecond        float64
	NumRecordsOutPerSecond       float64
	// PendingRecords is the source's backlog (0 for other vertices).
	PendingRecords float64
}

// Metrics are the vertices' metrics over the last step of Advance (a second, or what was
// left of the time advanced), with parallelism p. A vertex busy less than all the time waits:
// on its output (backpressured) when it is upstream of the slowest vertex while a backlog
// waits, for input (idle) otherwise.
func (m *Model) Metrics(p []int) ([]VertexMetrics, error) {
	if err := m.check(p); err != nil {
		return nil, err
	}
	_, slowest := m.spec.Capacity(p)
	backlog := m.Backlog()
	out := make([]VertexMetrics, len(p))
	for i, v := range m.spec.Vertices {
		busy := min(1000*m.rate/(float64(p[i])*v.Capacity), 1000)
		vm := VertexMetrics{BusyTimeMsPerSecond: busy, NumRecordsInPerSecond: m.rate, NumRecordsOutPerSecond: m.rate}
		if backlog > 0 && i < slowest && m.rate > 0 {
			vm.BackPressuredTimeMsPerSecond = 1000 - busy
		} else {
			vm.IdleTimeMsPerSecond = 1000 - busy
		}
		if i == 0 {
			vm.NumRecordsInPerSecond, vm.PendingRecords = 0, backlog
		}
		out[i] = vm
	}
	return out, nil
}
