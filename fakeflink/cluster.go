package fakeflink

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"strings"
	"time"

	"k8s.io/utils/clock"
)

// Timing holds the fake's durations.
type Timing struct {
	// JobStart is how long a submitted job stays INITIALIZING before it is CREATED.
	JobStart time.Duration
	// Operation is how long a triggered savepoint, checkpoint or disposal takes.
	Operation time.Duration
	// Cancel is how long a job stays CANCELLING.
	Cancel time.Duration
}

// DefaultTiming is the timing used when Options leave it zero.
var DefaultTiming = Timing{JobStart: 2 * time.Second, Operation: time.Second, Cancel: 500 * time.Millisecond}

// Options are a cluster's dependencies.
type Options struct {
	// Clock is the only source of time.
	Clock clock.PassiveClock
	// Rand is the only source of randomness (ids, savepoint names).
	Rand *rand.Rand
	// Store is the durable store shared by the world's clusters.
	Store *Store
	// HA is the HA metadata store shared by the world's clusters.
	HA HAStore
	// Timing overrides DefaultTiming when non-zero.
	Timing Timing
}

// ClusterSpec describes one Flink cluster.
type ClusterSpec struct {
	// ID is the cluster id (kubernetes.cluster-id); the HA cluster id defaults to it.
	ID string
	// Config is the flat Flink configuration.
	Config map[string]string
	// Application is the job of an application cluster, run when the JobManager starts; nil
	// for a session cluster.
	Application *Program
	// FlinkVersion is reported by /config and /overview (e.g. "1.20.1").
	FlinkVersion string
}

// JobStart records one start of a job, for invariant checks: which snapshot it restored and
// the offset it started from.
type JobStart struct {
	JobID       string
	Time        time.Time
	RestorePath string
	Offset      int64
}

// Cluster is one simulated Flink cluster: a JobManager, its TaskManagers and its jobs.
type Cluster struct {
	spec     ClusterSpec
	settings Settings
	opts     Options

	up     bool
	tms    map[string]int // TaskManager id → slots
	jobs   map[string]*Job
	order  []string // job ids in submission order
	ops    map[string]*operation
	jars   map[string]*Jar
	faults faults
	starts []JobStart
}

// NewCluster returns a cluster whose JobManager is not started yet.
func NewCluster(spec ClusterSpec, opts Options) (*Cluster, error) {
	settings, err := ParseSettings(spec.Config)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: %w", spec.ID, err)
	}
	if settings.HAClusterID == "" {
		settings.HAClusterID = spec.ID
	}
	if opts.Timing == (Timing{}) {
		opts.Timing = DefaultTiming
	}
	if opts.Store == nil {
		opts.Store = NewStore()
	}
	if opts.HA == nil {
		opts.HA = NewMemoryHA()
	}
	if spec.FlinkVersion == "" {
		spec.FlinkVersion = "1.20.1"
	}
	c := &Cluster{spec: spec, settings: settings, opts: opts, tms: map[string]int{}}
	c.reset()
	return c, nil
}

func (c *Cluster) reset() {
	c.jobs = map[string]*Job{}
	c.order = nil
	c.ops = map[string]*operation{}
	c.jars = map[string]*Jar{}
	for _, name := range strings.Split(c.spec.Config[KeySessionJars], ",") {
		if name = strings.TrimSpace(name); name != "" {
			c.jars[name] = &Jar{ID: name, Name: name} // in the image: survives a restart
		}
	}
}

// ID is the cluster id.
func (c *Cluster) ID() string { return c.spec.ID }

// Spec is the cluster's spec.
func (c *Cluster) Spec() ClusterSpec { return c.spec }

// Settings are what the fake read from the configuration.
func (c *Cluster) Settings() Settings { return c.settings }

// Now is the cluster's current time.
func (c *Cluster) Now() time.Time { return c.opts.Clock.Now() }

// Up reports whether the JobManager runs.
func (c *Cluster) Up() bool { return c.up }

// Starts lists every job start so far, oldest first.
func (c *Cluster) Starts() []JobStart { return slices.Clone(c.starts) }

// StartJobManager starts the JobManager. With HA it recovers the jobs recorded under the HA
// cluster id from their latest checkpoints; an application cluster whose job was not recovered
// submits it from its configuration (and execution.savepoint.path).
func (c *Cluster) StartJobManager() error {
	if c.up {
		return nil
	}
	c.up = true
	if c.settings.HAEnabled {
		recorded, err := c.opts.HA.Load(c.settings.HAClusterID)
		if err != nil {
			return fmt.Errorf("load HA metadata: %w", err)
		}
		for _, id := range slices.Sorted(maps.Keys(recorded)) {
			rec := recorded[id]
			path := rec.CheckpointPath
			if path == "" {
				path = rec.Program.RestorePath
			}
			prog := rec.Program
			if app := c.spec.Application; app != nil {
				// Application mode re-runs main() on recovery: the job takes the new
				// configuration (parallelism, …); HA only supplies its id and checkpoint.
				prog = *app
			}
			c.submit(prog, rec.JobID, path)
		}
	}
	if app := c.spec.Application; app != nil {
		id := conf(c.spec.Config).first(keyJobID)
		if id == "" {
			id = c.newID()
		}
		final, done := c.opts.Store.Result(c.settings.HAClusterID, id)
		switch _, recovered := c.jobs[id]; {
		case recovered || len(c.jobs) > 0:
		case c.settings.HAEnabled && done:
			c.finished(*app, id, final) // the job result store says it already ended
		default:
			c.submit(*app, id, app.RestorePath)
		}
	}
	return nil
}

// CrashJobManager stops the JobManager abruptly: jobs, pending operations and uploaded jars
// are lost; the durable store and HA metadata remain.
func (c *Cluster) CrashJobManager() {
	c.up = false
	c.reset()
}

// RegisterTaskManager adds (or re-registers) a TaskManager offering slots. A new one lets the
// adaptive scheduler scale up the jobs it ran short of slots (rescaleUp).
func (c *Cluster) RegisterTaskManager(id string, slots int) {
	_, known := c.tms[id]
	c.tms[id] = slots
	if !known && c.settings.Adaptive {
		c.rescaleUp()
	}
}

// RemoveTaskManager takes a TaskManager away; running jobs that no longer fit fail over.
func (c *Cluster) RemoveTaskManager(id string) {
	if _, ok := c.tms[id]; !ok {
		return
	}
	delete(c.tms, id)
	now := c.Now()
	free := c.totalSlots()
	for _, j := range c.orderedJobs() {
		if !holdsSlots(j.Status) {
			continue
		}
		if j.slots() <= free {
			free -= j.slots()
			continue
		}
		c.failJob(j, "java.util.concurrent.TimeoutException",
			fmt.Sprintf("The heartbeat of TaskManager with id %s timed out.", id), now)
	}
}

// TaskManagers returns the registered TaskManagers and their slots, by id.
func (c *Cluster) TaskManagers() map[string]int { return maps.Clone(c.tms) }

func (c *Cluster) totalSlots() int {
	n := 0
	for _, s := range c.tms {
		n += s
	}
	return n
}

// UsedSlots is the number of slots running jobs hold.
func (c *Cluster) UsedSlots() int {
	n := 0
	for _, j := range c.jobs {
		if holdsSlots(j.Status) {
			n += j.slots()
		}
	}
	return n
}

// TotalSlots is the number of slots the TaskManagers offer.
func (c *Cluster) TotalSlots() int { return c.totalSlots() }

func holdsSlots(s JobStatus) bool {
	return s == StatusRunning || s == StatusCancelling || s == StatusFailing
}

// Jobs returns the jobs in submission order. Callers must not change them.
func (c *Cluster) Jobs() []*Job { return c.orderedJobs() }

func (c *Cluster) orderedJobs() []*Job {
	out := make([]*Job, 0, len(c.order))
	for _, id := range c.order {
		out = append(out, c.jobs[id])
	}
	return out
}

// Job returns a job by id.
func (c *Cluster) Job(id string) (*Job, error) {
	j, ok := c.jobs[id]
	if !ok {
		return nil, errorf(KindNotFound, "Job %s not found", id)
	}
	return j, nil
}

// newID returns 32 lower-case hex characters from the seeded source.
func (c *Cluster) newID() string {
	return fmt.Sprintf("%016x%016x", c.opts.Rand.Uint64(), c.opts.Rand.Uint64())
}

// RequiredSlots is the slot demand of the cluster's jobs that have not ended: what Flink's
// declarative resource manager asks its driver for. A JobManager that is down asks for none.
func (c *Cluster) RequiredSlots() int {
	if !c.up {
		return 0
	}
	n := 0
	for _, j := range c.jobs {
		if !j.Status.IsTerminal() {
			n += j.desiredSlots()
		}
	}
	return n
}
