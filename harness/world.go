package harness

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/harness/podsim"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/controller"
	"github.com/flinkop/flinkop/operator/cron"
	"github.com/flinkop/flinkop/operator/decide"
	"github.com/flinkop/flinkop/operator/flink"
	"github.com/flinkop/flinkop/operator/observe"
)

// Start is the virtual time every world starts at.
var Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// World is one deterministic simulation: a virtual clock, a seeded random source, a
// Kubernetes API (a Backend), the pod simulator with fakeflink behind it, the real reconciler
// called directly (no manager goroutines), a queue of due reconciles and timers, and a trace.
// Reconciles run one at a time and take no virtual time, unless SetWorkers gives the world a
// pool of reconcile workers in virtual time (the fleet property's latency invariants).
type World struct {
	// lastWake is the pod simulator's last wake time next stepped to (see next).
	lastWake time.Time
	Clock    *clocktesting.FakeClock
	Rand     *rand.Rand
	Client   client.Client
	Sim      *podsim.Sim
	Options  config.Options
	Trace    *Trace
	// Namespace is where the world's resources live.
	Namespace string
	// Reconciles counts the reconciles run so far.
	Reconciles int
	// Boundary is the tenant boundary: the jar repository, the world's DNS and jar
	// directory, and what the operator fetched.
	Boundary *Boundary
	// SnapshotMaxConcurrent is kubernetes.operator.snapshot.max-concurrent (0: no bound); set
	// it before RestartOperator. SnapshotSlots are the running operator's.
	SnapshotMaxConcurrent int
	SnapshotSlots         *controller.SnapshotSlots

	jarFetcher *flink.JarFetcher // replaces Boundary.Fetcher() when set (tests of the checker)
	checker    *Checker          // the checker made for this world last (NewChecker), told of faults by Inject
	reconciler *controller.FlinkDeploymentReconciler
	sessionJob *controller.FlinkSessionJobReconciler
	snapshot   *controller.FlinkStateSnapshotReconciler
	blueGreen  *controller.FlinkBlueGreenDeploymentReconciler
	opClient   client.Client // the operator's view of the API, with the fault hooks
	apiReader  client.Reader // the operator's reads past its cache
	// noWriteFence builds the operator without its write fence (controller.Setup.NoWriteFence).
	noWriteFence bool
	alarms       alarms
	api          apiFaults
	dropEvents   int                  // watch events still to be missed
	seen         map[string]string    // cron run or child name → resourceVersion last seen (see discover)
	gens         map[string]int64     // cron run or child name → generation last seen (see discover)
	snapshots    map[string]string    // snapshot key → resourceVersion last seen (see discoverSnapshots)
	snapWrites   int                  // api.snapshotWrites when discoverSnapshots last listed
	ownerGone    bool                 // a resource went since discoverSnapshots last listed
	templates    bool                 // a cron template or blue/green deployment was applied: the operator creates FlinkDeployments
	blueGreens   bool                 // a blue/green deployment was applied: its Ingress is collected (see collectIngresses)
	due          map[string]time.Time // resource name → next reconcile
	notes        []string             // lines the demo prints
	timers       []timer
	events       *recorder
	workers      workers
	answers      answerWatch // the REST answers the operator reads (invariant T1)
}

type timer struct {
	at time.Time
	f  func()
}

// NewWorld returns a world on a fresh fake backend, seeded with seed.
func NewWorld(seed int64) (*World, error) {
	b, err := FakeBackend()
	if err != nil {
		return nil, err
	}
	return NewWorldOn(b, seed), nil
}

// NewWorldOn returns a world on backend b, seeded with seed.
func NewWorldOn(b Backend, seed int64) *World {
	c := b.Client()
	clk := clocktesting.NewFakeClock(Start)
	r := rand.New(rand.NewSource(seed))
	opts := config.Defaults()
	opts.ProgressCheckInterval = 2 * time.Second
	opts.ReconcileInterval = 30 * time.Second
	// The world's operator has no Flink defaults, so no state directories: its snapshots may
	// use the directories the fixtures and the demo configure (file:///data/sp, /data/cp,
	// /data/manual; file:///flink-data/...).
	opts.SnapshotAllowedPathPrefixes = "file:///data,file:///flink-data"
	sim := podsim.New(c, clk, rand.New(rand.NewSource(r.Int63())))
	sim.Namespace = b.Namespace()
	w := &World{
		Clock: clk, Rand: r, Client: c, Sim: sim, Namespace: b.Namespace(),
		Options: opts, Trace: &Trace{start: Start}, due: map[string]time.Time{}, Boundary: &Boundary{},
	}
	w.events = &recorder{world: w}
	w.api.now, w.api.rand = clk.Now, r.Int63n
	w.api.conflict = func(obj client.Object, err error) {
		w.Trace.add(w.Clock.Now(), "error", obj.GetName(), "write conflict, retried: "+err.Error())
	}
	w.opClient = w.api.wrap(CacheView(c))
	w.apiReader = w.api.reader(c)
	w.RestartOperator()
	return w
}

// RestartOperator replaces the reconciler by a fresh one (nothing carried over but what is in
// the API), as an operator pod restart would, and reconciles every resource at once.
func (w *World) RestartOperator() {
	opts := w.Options
	opts.FlinkClientTimeout = clientTimeout
	jars := w.jarFetcher
	if jars == nil {
		jars = w.Boundary.Fetcher()
	}
	w.SnapshotSlots = controller.NewSnapshotSlots(w.SnapshotMaxConcurrent) // a new process holds none
	setup := controller.Setup{
		Options: opts, Transport: costTransport{w}, Clock: w.Clock, Jars: jars, APIReader: w.apiReader, NoWriteFence: w.noWriteFence,
		SnapshotSlots: w.SnapshotSlots,
	}
	w.api.replaced = nil // a new process has written nothing yet
	w.reconciler = setup.Reconciler(w.opClient, w.events)
	w.sessionJob = setup.SessionJobReconciler(w.opClient, w.events)
	w.snapshot = setup.SnapshotReconciler(w.opClient, w.events)
	w.blueGreen = setup.BlueGreenReconciler(w.opClient, w.events)
	for name := range w.due {
		w.due[name] = w.Clock.Now()
	}
}

// SetJarFetcher gives the operator another jar fetcher from now on (restarting it), so that
// tests can show the checker catching a fetcher that leaves the tenant boundary.
func (w *World) SetJarFetcher(f *flink.JarFetcher) {
	w.jarFetcher = f
	w.RestartOperator()
}

// Apply creates a FlinkDeployment or replaces the spec of the existing one, as kubectl apply
// would (the generation grows when the spec changes).
func (w *World) Apply(d *flinkv1beta1.FlinkDeployment) error {
	gen, err := w.applySpec(d.DeepCopy())
	if err != nil {
		return err
	}
	if _, ok := d.Annotations[cron.AnnotationSchedule]; ok {
		w.templates = true
	}
	w.Trace.add(w.Clock.Now(), "spec", d.Name, "applied generation "+fmt.Sprint(gen))
	w.noteChange(d.Name)
	w.watchEvent(d.Name)
	return nil
}

// watchEvent enqueues a reconcile of the resource, as the operator's watch would, unless a
// missed-watch-event fault swallows it.
func (w *World) watchEvent(name string) {
	if w.dropEvents > 0 {
		w.dropEvents--
		w.Trace.add(w.Clock.Now(), "fault", name, "watch event missed")
		if _, known := w.due[name]; !known {
			// An object the operator has never seen is still found by the informer's next
			// resync; model it as one reconcile interval later.
			w.due[name] = w.Clock.Now().Add(w.Options.ReconcileInterval)
		}
		return
	}
	w.due[name] = w.Clock.Now()
}

// Delete deletes a FlinkDeployment.
func (w *World) Delete(name string) error {
	d, err := w.Get(name)
	if err != nil {
		return err
	}
	w.Trace.add(w.Clock.Now(), "spec", name, "deleted")
	w.watchEvent(name)
	return w.Client.Delete(context.Background(), d)
}

// Get reads a FlinkDeployment.
func (w *World) Get(name string) (*flinkv1beta1.FlinkDeployment, error) {
	var d flinkv1beta1.FlinkDeployment
	err := w.Client.Get(context.Background(), client.ObjectKey{Namespace: w.Namespace, Name: name}, &d)
	return &d, err
}

// Step advances to the next due reconcile or timer, runs it, lets the pod simulator and the
// Flink clusters catch up, and returns the virtual time it ran at.
func (w *World) Step() (time.Time, error) {
	next, name, isTimer := w.next()
	if next.After(w.Clock.Now()) {
		w.advanceTo(next)
	}
	if isTimer {
		t := w.timers[0]
		w.timers = w.timers[1:]
		t.f()
		return w.Clock.Now(), w.sync()
	}
	switch name {
	case "":
		return w.Clock.Now(), nil
	case simWake:
		return w.Clock.Now(), w.sync()
	}
	delete(w.due, name)
	w.Reconciles++
	w.started(name)
	w.beginAlarms(name)
	res, err := w.reconcile(name)
	w.endAlarms()
	end := w.finished(name)
	retry := w.retryAfter(name, end, err != nil)
	switch {
	case errors.Is(err, errOperatorCrashed):
		w.Trace.add(w.Clock.Now(), "fault", name, "operator crashed after an API write; restarting it")
		w.RestartOperator()
		w.due[name] = retry
	case err != nil:
		w.Trace.add(w.Clock.Now(), "error", name, err.Error())
		w.answers.notCached(name, err)
		w.due[name] = retry
	case res.RequeueAfter > 0:
		w.due[name] = end.Add(res.RequeueAfter)
	}
	if gerr := w.exists(name); gerr == nil && w.due[name].IsZero() && !strings.HasPrefix(name, snapshotPrefix) && !strings.HasPrefix(name, blueGreenPrefix) {
		w.due[name] = end.Add(w.Options.ReconcileInterval)
	} else if gerr == nil && w.due[name].IsZero() {
		// A snapshot that asks for no requeue (a finished one) waits for its next watch
		// event: the FlinkStateSnapshot controller watches only snapshots, and the manager's
		// resync is hours apart. So does a blue/green deployment that asks for none (one
		// whose reconcile failed retries).
		delete(w.due, name)
	} else if apierrors.IsNotFound(gerr) {
		delete(w.due, name)
		w.ownerGone = true // its snapshots may be the garbage collector's now
	}
	return w.Clock.Now(), w.sync()
}

// reconcile runs the reconciler of a due key: a FlinkDeployment's name, SessionJobKey(name)
// for a FlinkSessionJob, or SnapshotKey(name) for a FlinkStateSnapshot.
func (w *World) reconcile(key string) (ctrl.Result, error) {
	ctx := context.Background()
	if name, ok := strings.CutPrefix(key, sessionJobPrefix); ok {
		return w.sessionJob.Reconcile(ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: w.Namespace, Name: name}})
	}
	if name, ok := strings.CutPrefix(key, snapshotPrefix); ok {
		return w.snapshot.Reconcile(ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: w.Namespace, Name: name}})
	}
	if name, ok := strings.CutPrefix(key, blueGreenPrefix); ok {
		return w.blueGreen.Reconcile(ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: w.Namespace, Name: name}})
	}
	return w.reconciler.Reconcile(ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: w.Namespace, Name: key}})
}

// exists reads the object of a due key; a NotFound error says it is gone.
func (w *World) exists(key string) error {
	if name, ok := strings.CutPrefix(key, sessionJobPrefix); ok {
		_, err := w.GetSessionJob(name)
		return err
	}
	if name, ok := strings.CutPrefix(key, snapshotPrefix); ok {
		_, err := w.GetSnapshot(name)
		return err
	}
	if name, ok := strings.CutPrefix(key, blueGreenPrefix); ok {
		_, err := w.GetBlueGreen(name)
		return err
	}
	_, err := w.Get(key)
	return err
}

// next returns the earliest due reconcile or timer.
func (w *World) next() (at time.Time, name string, isTimer bool) {
	names := make([]string, 0, len(w.due))
	for n := range w.due {
		names = append(names, n)
	}
	slices.Sort(names)
	free := w.firstFree()
	for _, n := range names {
		if start := w.startAt(n, w.due[n], free); name == "" || start.Before(at) {
			at, name = start, n
		}
	}
	if len(w.timers) > 0 && (name == "" || w.timers[0].at.Before(at)) {
		return w.timers[0].at, "", true
	}
	if wake := w.Sim.NextWake(); !wake.IsZero() && (name == "" || wake.Before(at)) {
		// A native resource manager releases idle TaskManagers then: a sync, no reconcile.
		// A wake that a sync did not move on (its API call failed) waits a second: time
		// always advances.
		if !wake.After(w.Clock.Now()) && w.lastWake.Equal(wake) {
			wake = w.Clock.Now().Add(time.Second)
		}
		w.lastWake = wake
		return maxTime(wake, w.Clock.Now()), simWake, false
	}
	if name == "" {
		return w.Clock.Now().Add(time.Second), "", false
	}
	return at, name, false
}

// advanceTo moves the clock to t and lets the Flink clusters catch up (fakeflink processes
// everything due in between, in time order).
func (w *World) advanceTo(t time.Time) {
	w.Clock.SetTime(t)
	w.Sim.Tick()
}

func (w *World) sync() error {
	if err := w.Sim.Sync(context.Background()); err != nil {
		return fmt.Errorf("pod simulator: %w", err)
	}
	w.Sim.Tick()
	if err := w.discoverSnapshots(); err != nil {
		return err
	}
	return w.discover()
}

// RunUntilQuiet steps until nothing has happened for quiet of virtual time (no operator write,
// no trace entry), and fails when that takes longer than limit.
func (w *World) RunUntilQuiet(quiet, limit time.Duration) error {
	start := w.Clock.Now()
	last, writes, entries := start, w.api.total, len(w.Trace.Entries)
	for w.Clock.Now().Sub(last) < quiet {
		if w.Clock.Now().Sub(start) > limit {
			return fmt.Errorf("not quiet after %s of virtual time", limit)
		}
		if _, err := w.Step(); err != nil {
			return err
		}
		if w.api.total != writes || len(w.Trace.Entries) != entries {
			last, writes, entries = w.Clock.Now(), w.api.total, len(w.Trace.Entries)
		}
	}
	return nil
}

// RunFor steps until d of virtual time has passed.
func (w *World) RunFor(d time.Duration) error {
	end := w.Clock.Now().Add(d)
	for w.Clock.Now().Before(end) {
		if _, err := w.Step(); err != nil {
			return err
		}
	}
	return nil
}

// Cluster implements chaos.Target.
func (w *World) Cluster(name string, f func(c *fakeflink.Cluster)) bool {
	return w.Sim.Do(w.Namespace, act.JobManagerName(name), f)
}

// DeleteHAMetadata implements chaos.Target.
func (w *World) DeleteHAMetadata(name string) error {
	d, err := w.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return w.Client.DeleteAllOf(context.Background(), &corev1.ConfigMap{}, client.InNamespace(w.Namespace), observe.HASelector(d))
}

// DeleteJobManagerDeployment implements chaos.Target: the Deployment goes, and the pod
// simulator lets its pods die at once (a recreated Deployment starts a new JobManager).
func (w *World) DeleteJobManagerDeployment(name string) error {
	dep := &appsv1.Deployment{}
	dep.Namespace, dep.Name = w.Namespace, act.JobManagerName(name)
	if err := w.Client.Delete(context.Background(), dep); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("delete JobManager Deployment: %w", err)
	}
	return w.sync()
}

// BreakJobManagerPod implements chaos.Target.
func (w *World) BreakJobManagerPod(name, reason string, d time.Duration) {
	w.Sim.BreakPods(w.Namespace, act.JobManagerName(name), reason, d)
	w.Schedule(d, func() {}) // a step when the pod heals
}

// RefuseTaskManagerPods implements chaos.Target.
func (w *World) RefuseTaskManagerPods(name string, d time.Duration) error {
	if err := w.Sim.RefuseTaskManagerPods(context.Background(), w.Namespace, name, d); err != nil {
		return fmt.Errorf("refuse TaskManager pods: %w", err)
	}
	w.Schedule(d, func() {}) // a step when the quota frees up
	return w.sync()
}

// DelayJobManagerStart implements chaos.Target.
func (w *World) DelayJobManagerStart(name string, d time.Duration) {
	w.Sim.DelayNextStart(w.Namespace, act.JobManagerName(name), d)
}

// Now implements chaos.Target.
func (w *World) Now() time.Time { return w.Clock.Now() }

// Schedule implements chaos.Target.
func (w *World) Schedule(d time.Duration, f func()) {
	w.timers = append(w.timers, timer{at: w.Clock.Now().Add(d), f: f})
	sort.SliceStable(w.timers, func(i, j int) bool { return w.timers[i].at.Before(w.timers[j].at) })
}

// Events returns the events recorded so far.
func (w *World) Events() []Event { return slices.Clone(w.events.events) }

// Event is a recorded Kubernetes Event.
type Event struct {
	Time         time.Time
	Object       string
	Type, Reason string
	Message      string
}

// recorder records the operator's Events into the world (and its trace). Like the API server,
// it rejects an Event whose message is over controller.MaxEventMessage bytes; the rejections
// are invariant violations (the Event, often a Warning beside status.error, is lost). So is
// an Event whose reason is not in the catalogue (decide.KnownReason): users alert on reasons,
// and docs/events.md is the list they read.
type recorder struct {
	world    *World
	events   []Event
	rejected []string
}

func (r *recorder) Event(obj runtime.Object, eventtype, reason, message string) {
	name := ""
	if o, ok := obj.(client.Object); ok {
		name = o.GetName()
	}
	if len(message) > controller.MaxEventMessage {
		r.rejected = append(r.rejected, fmt.Sprintf("%s: %s Event %s rejected: its message has %d bytes, over the API limit of %d",
			name, eventtype, reason, len(message), controller.MaxEventMessage))
		return
	}
	if !decide.KnownReason(reason) {
		r.rejected = append(r.rejected, fmt.Sprintf("%s: %s Event reason %q is not in the catalogue of reasons (decide.Reasons, docs/events.md)",
			name, eventtype, reason))
	}
	r.world.alarms.event(name, reason, message)
	e := Event{Time: r.world.Clock.Now(), Object: name, Type: eventtype, Reason: reason, Message: message}
	r.events = append(r.events, e)
	r.world.Trace.add(e.Time, "event", name, eventtype+" "+reason+": "+message)
}

// simWake is next's name for a step that syncs the pod simulator only (no reconcile is due
// before it has something to do on its own).
const simWake = "\x00sim"

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
