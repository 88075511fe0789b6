package scenarios

import (
	"flag"
	"fmt"
	"maps"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"pgregory.net/rapid"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/flinkop/flinkop/harness"
)

// DefaultSteps is the average number of actions of a run (rapid's -rapid.steps).
const DefaultSteps = 50

// SweepOptions says which runs a sweep makes.
type SweepOptions struct {
	// Seeds is the number of runs; run i uses seed BaseSeed+i.
	Seeds    int
	BaseSeed uint64
	// Workers run in parallel (0: one per CPU).
	Workers int
	// Steps is the average number of actions of a run (0: DefaultSteps).
	Steps int
	// NewBackend makes each run's backend (nil: the fake backend).
	NewBackend func() (harness.Backend, error)
	// Hostile makes every run a hostile-input run (otherwise every fourth one is, and every
	// eighth a fleet run).
	Hostile bool
}

// Summary is what a sweep found.
type Summary struct {
	Seeds, Actions, Reconciles int
	Faults                     map[string]int
	Violations                 []Violation
	Elapsed                    time.Duration
}

// Violation is one failing run: its seed, how to replay it, and rapid's report with the
// shrunk action list and the trace.
type Violation struct {
	Seed   uint64
	Replay string
	Report string
}

// flagMu guards rapid's global flags: a run sets its seed, and hands the lock on once rapid has
// read it (when the property starts).
var flagMu sync.Mutex

// sweeping is held from setRapidFlags to its restore: a Sweep or a Replay sets rapid's flags
// for its runs and puts them back when it returns, so two at once would run with each other's.
var sweeping sync.Mutex

// Sweep runs opts.Seeds independent runs of the state-machine property (every fourth one the
// hostile-input property, every eighth the fleet, blue/green and session-job ones) in
// parallel, each one replayable alone with -rapid.seed, and sums them up.
func Sweep(opts SweepOptions) (Summary, error) {
	start := time.Now()
	ctrl.SetLogger(logr.Discard()) // the operator's logs would drown the report; traces say it all
	// Worlds are small and short-lived: collecting less often buys a third more runs.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	steps := opts.Steps
	if steps <= 0 {
		steps = DefaultSteps
	}
	restore, err := setRapidFlags(steps)
	if err != nil {
		return Summary{}, err
	}
	defer restore()

	sum := Summary{Faults: map[string]int{}}
	var mu sync.Mutex
	seeds := make(chan uint64)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seed := range seeds {
				st, v := runSeed(seed, steps, opts.NewBackend, kindOf(seed, opts.Hostile))
				mu.Lock()
				sum.Seeds++
				sum.Actions += st.Actions
				sum.Reconciles += st.Reconciles
				for k, n := range st.Faults {
					sum.Faults[k] += n
				}
				if v != nil {
					sum.Violations = append(sum.Violations, *v)
				}
				mu.Unlock()
			}
		}()
	}
	for i := range opts.Seeds {
		seeds <- opts.BaseSeed + uint64(i)
	}
	close(seeds)
	wg.Wait()
	slices.SortFunc(sum.Violations, func(a, b Violation) int { return int(a.Seed - b.Seed) })
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// setRapidFlags sets rapid's flags for sweep runs: one check of steps actions per seed, no
// fail files. It holds them for the caller (another Sweep or Replay waits) until restore puts
// back what they were, with the seed the runs set, so a test that sweeps leaves the properties
// of the tests after it their own -rapid flags.
func setRapidFlags(steps int) (restore func(), err error) {
	sweeping.Lock()
	flagMu.Lock()
	defer flagMu.Unlock()
	if flag.Lookup("test.short") == nil {
		// Outside go test (flinksim sweep): rapid asks testing.Short, which needs the
		// testing flags registered and parsed.
		testing.Init()
	}
	if !flag.Parsed() {
		_ = flag.CommandLine.Parse(nil) // testing.Short also wants the command line parsed
	}
	was := map[string]string{}
	for _, name := range []string{"rapid.checks", "rapid.nofailfile", "rapid.steps", "rapid.seed"} {
		if f := flag.Lookup(name); f != nil {
			was[name] = f.Value.String()
		}
	}
	putBack := func() {
		for name, v := range was {
			_ = flag.Set(name, v)
		}
		sweeping.Unlock()
	}
	for name, v := range map[string]string{"rapid.checks": "1", "rapid.nofailfile": "true", "rapid.steps": strconv.Itoa(steps)} {
		if err := flag.Set(name, v); err != nil {
			putBack()
			return nil, fmt.Errorf("rapid flag %s: %w", name, err)
		}
	}
	return func() {
		flagMu.Lock()
		defer flagMu.Unlock()
		putBack()
	}, nil
}

// runKind is which property a sweep run checks.
type runKind int

const (
	runOperator  runKind = iota // TestOperatorStateMachine
	runHostile                  // TestHostileInput
	runFleet                    // TestFleetStateMachine
	runBlueGreen                // TestBlueGreenStateMachine
	runSession                  // TestSessionJobStateMachine
)

// kindOf picks the property of seed's run: every fourth the hostile-input one, every eighth
// the fleet one, the blue/green one and the session-job one, else the FlinkDeployment
// operator's; all hostile-input with hostile.
func kindOf(seed uint64, hostile bool) runKind {
	switch {
	case hostile || seed%4 == 3:
		return runHostile
	case seed%8 == 1:
		return runFleet
	case seed%8 == 5:
		return runBlueGreen
	case seed%8 == 2:
		return runSession
	}
	return runOperator
}

// runSeed runs the property of kind once from seed.
func runSeed(seed uint64, steps int, newBackend func() (harness.Backend, error), kind runKind) (st Stats, v *Violation) {
	tb := &sweepTB{name: fmt.Sprintf("seed-%d", seed)}
	var once sync.Once
	release := func() { once.Do(flagMu.Unlock) }
	flagMu.Lock()
	defer release()
	if err := flag.Set("rapid.seed", strconv.FormatUint(seed, 10)); err != nil {
		return st, &Violation{Seed: seed, Report: err.Error()}
	}
	prop, test := Property(newBackend, &st), "TestOperatorStateMachine"
	switch kind {
	case runHostile:
		prop, test = HostileProperty(newBackend, &st), "TestHostileInput"
	case runFleet:
		prop, test = FleetProperty(newBackend, &st), "TestFleetStateMachine"
	case runBlueGreen:
		prop, test = BlueGreenProperty(newBackend, &st), "TestBlueGreenStateMachine"
	case runSession:
		prop, test = SessionProperty(newBackend, &st), "TestSessionJobStateMachine"
	}
	func() {
		defer func() {
			if r := recover(); r != nil && r != errStop {
				tb.Errorf("panic: %v", r)
			}
		}()
		rapid.Check(tb, func(t *rapid.T) { release(); prop(t) })
	}()
	if !tb.failed {
		return st, nil
	}
	hostile := ""
	if kind == runHostile && kindOf(seed, false) != runHostile {
		hostile = " --hostile" // a hostile-only sweep's seed
	}
	return st, &Violation{
		Seed: seed,
		Replay: fmt.Sprintf("flinksim replay --seed %d --steps %d%s (its timeline), or go test ./scenarios -run '%s$' -rapid.checks=1 -rapid.steps=%d -rapid.seed=%d",
			seed, steps, hostile, test, steps, seed),
		Report: strings.Join(tb.logs, "\n"),
	}
}

// String renders the summary for people.
func (s Summary) String() string {
	var b strings.Builder
	perMin := float64(s.Seeds) / max(s.Elapsed.Minutes(), 1e-9)
	fmt.Fprintf(&b, "seeds %d, actions %d, reconciles %d, violations %d, %s (%.0f runs/min)\n",
		s.Seeds, s.Actions, s.Reconciles, len(s.Violations), s.Elapsed.Round(time.Millisecond), perMin)
	fmt.Fprintf(&b, "faults by class:\n")
	for _, k := range slices.Sorted(maps.Keys(s.Faults)) {
		fmt.Fprintf(&b, "  %-28s %d\n", k, s.Faults[k])
	}
	for _, v := range s.Violations {
		fmt.Fprintf(&b, "\nVIOLATION seed %d — replay: %s\n%s\n", v.Seed, v.Replay, v.Report)
	}
	return b.String()
}

// errStop ends a failed run (rapid.TB's FailNow).
var errStop = fmt.Errorf("run stopped")

// sweepTB is the rapid.TB of one sweep run: it collects the report instead of failing a test.
type sweepTB struct {
	name   string
	logs   []string
	failed bool
}

func (t *sweepTB) Helper()                      {}
func (t *sweepTB) Name() string                 { return t.name }
func (t *sweepTB) Logf(format string, a ...any) { t.logs = append(t.logs, fmt.Sprintf(format, a...)) }
func (t *sweepTB) Log(a ...any)                 { t.logs = append(t.logs, fmt.Sprint(a...)) }
func (t *sweepTB) Skipf(format string, a ...any) {
	t.Logf(format, a...)
	panic(errStop)
}
func (t *sweepTB) Skip(a ...any) { t.Log(a...); panic(errStop) }
func (t *sweepTB) SkipNow()      { panic(errStop) }
func (t *sweepTB) Errorf(format string, a ...any) {
	t.failed = true
	t.Logf(format, a...)
}
func (t *sweepTB) Error(a ...any) { t.failed = true; t.Log(a...) }
func (t *sweepTB) Fatalf(format string, a ...any) {
	t.Errorf(format, a...)
	panic(errStop)
}
func (t *sweepTB) Fatal(a ...any) { t.Error(a...); panic(errStop) }
func (t *sweepTB) FailNow()       { t.failed = true; panic(errStop) }
func (t *sweepTB) Fail()          { t.failed = true }
func (t *sweepTB) Failed() bool   { return t.failed }
