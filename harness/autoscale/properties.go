package autoscale

import (
	"fmt"
	"time"
)

// Settle is how long after the input's last change a run must have settled: the decisions a
// chain of n vertices may need (one per vertex while each becomes the bottleneck in turn, and
// the scale-downs the scale-down factor allows), each waiting for a full metrics window after
// the stabilization interval and the scale-down interval, plus the catch-up duration.
func (r Run) Settle() time.Duration {
	c := r.Config
	decision := c.Stabilization + c.MetricsWindow + 2*r.Every + c.ScaleDownInterval + r.Spec.RestartTime
	return time.Duration(len(r.Spec.Vertices)+maxScaleDowns) * decision
}

// maxScaleDowns is the scale-down decisions from the largest parallelism to 1 at the default
// scale-down factor (0.4 of the parallelism each: 200 → 1 takes 6).
const maxScaleDowns = 7

// CheckSettled is the convergence property: from settled on (the input's last change plus
// Settle), the autoscaler decides nothing, no backlog waits, and no vertex is busier than the
// top of its utilization band (target plus boundary, at most all the time).
func CheckSettled(r Run, tr Trace, settled time.Duration) error {
	_, upper := r.Config.Band()
	for _, e := range tr.Events {
		if e.At >= settled {
			return fmt.Errorf("a decision at %v, after the run should have settled at %v: %v → %v", e.At, settled, e.From, e.To)
		}
	}
	for _, p := range tr.Points {
		if p.At < settled {
			continue
		}
		if p.Backlog > 0 {
			return fmt.Errorf("a backlog of %.0f at %v, after the run should have settled at %v", p.Backlog, p.At, settled)
		}
		for i, u := range p.Utilization {
			if u > upper+1e-9 {
				return fmt.Errorf("vertex %d %.0f%% busy at %v (parallelism %v), above its band's %.0f%%, after the run should have settled at %v", i, 100*u, p.At, p.Parallelism, 100*upper, settled)
			}
		}
	}
	return nil
}

// CheckWindows is the stabilization property: no decision reads a sample taken before the
// job's last (re)start plus the stabilization interval, so no window holds a restart.
func CheckWindows(r Run, tr Trace) error {
	for _, e := range tr.Events {
		last := time.Duration(0)
		for _, s := range tr.Restarts {
			if s < e.At {
				last = s
			}
		}
		if start := e.Decision.WindowStart.Sub(tr.Began); start < last+r.Config.Stabilization {
			return fmt.Errorf("the decision at %v read metrics from %v, within the stabilization interval after the restart at %v", e.At, start, last)
		}
	}
	return nil
}

// CheckBounds is the bounds property: no vertex ever runs above the configured maximum or its
// key groups, or below one subtask.
func CheckBounds(r Run, tr Trace) error {
	upper := min(r.Config.MaxParallelism, r.KeyGroups)
	for _, e := range tr.Events {
		for i, p := range e.To {
			if p < 1 || p > max(upper, r.Start[i]) {
				return fmt.Errorf("the decision at %v set vertex %d to %d, outside [1, %d]", e.At, i, p, upper)
			}
		}
	}
	return nil
}

// CheckNoOscillation is the stability property: each vertex turns (a scale-up after a
// scale-down, or the reverse) at most twice per turn of the input plus twice.
func CheckNoOscillation(tr Trace, inputTurns int) error {
	for i := range tr.Points[0].Parallelism {
		turns, last := 0, 0
		for _, e := range tr.Events {
			dir := sign(e.To[i] - e.From[i])
			if dir != 0 && last != 0 && dir != last {
				turns++
			}
			if dir != 0 {
				last = dir
			}
		}
		if limit := 2*inputTurns + 2; turns > limit {
			return fmt.Errorf("vertex %d turned %d times for %d turns of the input (at most %d)", i, turns, inputTurns, limit)
		}
	}
	return nil
}

func sign(n int) int {
	switch {
	case n > 0:
		return 1
	case n < 0:
		return -1
	}
	return 0
}

// Summarize is a run in a few lines: its decisions, its parallelism at the end, the largest
// backlog, and the share of time the chain's busiest vertex spent within its band.
func Summarize(r Run, tr Trace) string {
	lo, hi := r.Config.Band()
	peak, inBand, backlogged := 0.0, 0, 0
	for _, p := range tr.Points {
		peak = max(peak, p.Backlog)
		busiest := 0.0
		for _, u := range p.Utilization {
			busiest = max(busiest, u)
		}
		if busiest >= lo && busiest <= hi {
			inBand++
		}
		if p.Backlog > 0 {
			backlogged++
		}
	}
	n := float64(len(tr.Points))
	last := tr.Points[len(tr.Points)-1]
	return fmt.Sprintf("%v simulated, sampled every %v: %d decisions, parallelism %v → %v\n"+
		"busiest vertex within its band (%.0f%%–%.0f%%) %.1f%% of the time; a backlog %.1f%% of the time, at most %.0f records\n",
		last.At, r.Every, len(tr.Events), r.Start, last.Parallelism, 100*lo, 100*hi, 100*float64(inBand)/n, 100*float64(backlogged)/n, peak)
}
