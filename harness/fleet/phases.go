package fleet

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// phases runs the measured phases in order: create and converge, steady state, then (unless
// ConvergeOnly) an upgrade wave (unless NoWave), spec-change latency with every JobManager answering, then
// with the slow share hung.
func (f *fleet) phases(ctx context.Context) error {
	allocated, read := f.allocations(ctx)
	start, cpu := time.Now(), processCPU()
	f.logf("creating %d FlinkDeployments", f.cfg.N)
	if err := f.create(ctx); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	if err := f.until(ctx, "converged", 1); err != nil {
		return err
	}
	f.rep.Converge, f.rep.ConvergeWrites = time.Since(start), f.api.writes.Load()
	f.rep.ConvergeWritesByKind = f.api.writesByKind()
	f.rep.ConvergeCPU = cpuSince(processCPU(), cpu)
	f.rep.WorldConvergeWrites = f.world.writesByKind()
	f.rep.ConvergeReadsByKind = f.api.readsByKinds()
	after, readAfter := f.allocations(ctx)
	f.rep.ConvergeAllocations, f.rep.ConvergeAllocationsRead = after.Sub(allocated), read && readAfter
	f.convergedStatus = f.tracker.status(f.names[len(f.names)-1])
	f.logf("converged in %s with %d API writes", f.rep.Converge.Round(time.Millisecond), f.rep.ConvergeWrites)
	if f.proc != nil {
		var err error
		if f.rep.OperatorCPU, err = f.proc.cpu(ctx); err != nil {
			return err
		}
	}

	if err := f.steady(ctx); err != nil {
		return err
	}
	if f.cfg.Hostile {
		if err := f.hostile(ctx); err != nil {
			return err
		}
	}
	if f.cfg.ConvergeOnly {
		return nil
	}

	if !f.cfg.NoWave {
		if err := f.wave(ctx); err != nil {
			return err
		}
	}

	healthy := f.names[f.rep.Slow:]
	changed := healthy[:min(len(healthy), f.cfg.Changes)]
	var err error
	if f.rep.Latency, err = f.latency(ctx, changed); err != nil {
		return err
	}
	if f.rep.Slow == 0 {
		return nil
	}
	f.logf("%d JobManagers stop answering", f.rep.Slow)
	f.rest.setSlow(f.names[:f.rep.Slow])
	f.rep.SlowLatency, err = f.latency(ctx, changed)
	f.rep.HungCalls = f.rest.hung.Load()
	return err
}

// wave changes every deployment's parallelism and waits until all run the change.
func (f *fleet) wave(ctx context.Context) error {
	start, cpu := time.Now(), processCPU()
	f.logf("upgrade wave: parallelism of every deployment")
	if err := parallel(ctx, 16, len(f.names), func(ctx context.Context, i int) error {
		_, err := f.change(ctx, f.names[i])
		return err
	}); err != nil {
		return fmt.Errorf("wave: %w", err)
	}
	if err := f.until(ctx, "upgraded", 2); err != nil {
		return err
	}
	f.rep.Wave = time.Since(start)
	f.rep.WaveCPU = cpuSince(processCPU(), cpu)
	f.logf("wave done in %s", f.rep.Wave.Round(time.Millisecond))
	return nil
}

// steady holds the converged fleet for the steady window and counts what the operator does
// meanwhile, then measures its memory.
func (f *fleet) steady(ctx context.Context) error {
	f.settle(ctx)
	writes, calls, before := f.api.writes.Load(), f.rest.calls.Load(), f.api.writesByKind()
	var cpu time.Duration
	var err error
	if f.proc != nil {
		if cpu, err = f.proc.cpu(ctx); err != nil {
			return err
		}
	}
	start := time.Now()
	f.logf("holding steady for %s", f.cfg.Steady)
	sleep(ctx, f.cfg.Steady)
	f.rep.SteadyWrites = f.api.writes.Load() - writes
	f.rep.SteadyWritesByKind = subtract(f.api.writesByKind(), before)
	f.rep.SteadyRESTPerDeployment = float64(f.rest.calls.Load()-calls) / float64(f.cfg.N)
	f.rep.SteadyWindow = f.cfg.Steady
	if f.rep.SteadyEvents, err = f.eventsSince(ctx, start); err != nil {
		return err
	}
	f.rep.HeapMB, f.rep.RSSMB = memory()
	if f.proc == nil {
		f.rep.OperatorHeapMB = operatorHeapMB()
		return writeHeapProfile(f.cfg.HeapProfile)
	}
	end, err := f.proc.cpu(ctx)
	if err != nil {
		return err
	}
	f.rep.SteadyCPU = end - cpu
	f.rep.OperatorHeapMB, f.rep.OperatorRSSMB, f.rep.OperatorPeakRSSMB, err = f.proc.memory(ctx, f.cfg.HeapProfile)
	return err
}

// settle waits (up to half a minute) for a second without API writes: the last transitions'
// Events are recorded asynchronously and may still be on their way when the tracker sees the
// fleet converged. A write that recurs at steady state recurs within the steady window still.
func (f *fleet) settle(ctx context.Context) {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		before := f.api.writes.Load()
		if !sleep(ctx, time.Second) || f.api.writes.Load() == before {
			return
		}
	}
	f.logf("API writes did not settle within 30s of converging")
}

// operatorHeap is the operator's heap in use, in MB (estimated when it shares this process).
func (f *fleet) operatorHeap(ctx context.Context) float64 {
	if f.proc == nil {
		return operatorHeapMB()
	}
	heap, _, _, err := f.proc.memory(ctx, "")
	if err != nil {
		f.logf("operator heap: %v", err)
		return -1
	}
	return heap
}

// until waits for every deployment to run generation gen.
func (f *fleet) until(ctx context.Context, what string, gen int64) error {
	start := time.Now()
	deadline := start.Add(f.cfg.Timeout)
	last := start
	for {
		n := f.tracker.converged(f.names, gen)
		if n == len(f.names) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d %s after %s", n, len(f.names), what, f.cfg.Timeout)
		}
		if time.Since(last) > 10*time.Second {
			f.logf("%d of %d %s; waiting: %s", n, len(f.names), what, f.tracker.stuck(f.names, gen))
			if len(f.names)-n <= 3 && time.Since(start) > 2*time.Minute {
				f.explain(gen)
			}
			last = time.Now()
		}
		if !sleep(ctx, 200*time.Millisecond) {
			return ctx.Err()
		}
	}
}

// explain logs what the simulated Flink cluster of each deployment still waited for shows:
// its TaskManagers, slots and jobs (the few laggards of a phase are worth a closer look).
func (f *fleet) explain(gen int64) {
	for _, name := range f.tracker.laggards(f.names, gen) {
		found := f.sim.Do(namespace, act.JobManagerName(name), func(c *fakeflink.Cluster) {
			var jobs []string
			for _, j := range c.Jobs() {
				jobs = append(jobs, fmt.Sprintf("%s %s p=%d", j.ID, j.Status, j.Parallelism()))
			}
			f.logf("  %s: up=%t task managers %v, slots %d used of %d, jobs %v", name, c.Up(), c.TaskManagers(), c.UsedSlots(), c.TotalSlots(), jobs)
		})
		if !found {
			f.logf("  %s: no simulated JobManager", name)
		}
	}
}

// change raises name's parallelism (an upgrade) and returns the new generation.
func (f *fleet) change(ctx context.Context, name string) (int64, error) {
	var gen int64
	err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		var d flinkv1beta1.FlinkDeployment
		if err := f.env.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &d); err != nil {
			return err
		}
		p := *d.Spec.Job.Parallelism%4 + 1
		d.Spec.Job.Parallelism = &p
		if err := f.env.Client.Update(ctx, &d); err != nil {
			return err
		}
		gen = d.Generation
		return nil
	})
	return gen, err
}

// latency changes the spec of each name, spread over two reconcile intervals (so the operator
// polls every deployment, hung ones included, meanwhile), and measures how long each waits for
// the operator to observe it (its first action: recording the new spec).
func (f *fleet) latency(ctx context.Context, names []string) ([]time.Duration, error) {
	f.logf("spec changes of %d healthy deployments", len(names))
	type change struct {
		at, written time.Time // before the change's read and write, and once written
		gen         int64
	}
	changes := make([]change, len(names))
	for i, name := range names {
		at := time.Now()
		gen, err := f.change(ctx, name)
		if err != nil {
			return nil, err
		}
		changes[i] = change{at, time.Now(), gen}
		sleep(ctx, 2*f.cfg.ReconcileInterval/time.Duration(len(names)))
	}
	out := make([]time.Duration, len(names))
	deadline := time.Now().Add(f.cfg.Timeout)
	for i, name := range names {
		for {
			if seen, ok := f.tracker.observedAt(name, changes[i].gen); ok {
				out[i] = seen.Sub(changes[i].at)
				break
			}
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("%s: generation %d not observed within %s", name, changes[i].gen, f.cfg.Timeout)
			}
			if !sleep(ctx, 50*time.Millisecond) {
				return nil, ctx.Err()
			}
		}
	}
	f.logSlowest(names, out, func(i int) time.Duration { return changes[i].written.Sub(changes[i].at) })
	slices.Sort(out)
	return out, nil
}

// logSlowest logs the three slowest of the changes of names that took took, each with the
// part its own read and write took (written(i)): the rest is the operator's reaction and the
// watch that shows it.
func (f *fleet) logSlowest(names []string, took []time.Duration, written func(i int) time.Duration) {
	order := make([]int, len(took))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(took[b], took[a]) })
	for _, i := range order[:min(3, len(order))] {
		f.logf("  slow change: %s %s, of which its read and write %s", names[i], took[i].Round(time.Millisecond), written(i).Round(time.Millisecond))
	}
}

// sleep waits d or until ctx ends; it reports whether ctx is still live.
func sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// subtract returns the counts of after that grew since before, by how much.
func subtract(after, before map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, n := range after {
		if d := n - before[k]; d > 0 {
			out[k] = d
		}
	}
	return out
}
