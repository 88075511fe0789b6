package autoscaler

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Prefix is the autoscaler options' prefix; FallbackPrefix the older one the Apache operator
// still reads when an option is not set under Prefix.
const (
	Prefix         = "job.autoscaler."
	FallbackPrefix = "kubernetes.operator.job.autoscaler."
)

// Option names (after the prefix), as the Apache operator names them.
const (
	KeyEnabled               = "enabled"
	KeyScalingEnabled        = "scaling.enabled"
	KeyMetricsWindow         = "metrics.window"
	KeyStabilization         = "stabilization.interval"
	KeyTargetUtilization     = "utilization.target"
	KeyTargetUtilizationOld  = "target.utilization"
	KeyUtilizationBoundary   = "target.utilization.boundary"
	KeyUtilizationMin        = "utilization.min"
	KeyUtilizationMax        = "utilization.max"
	KeyScaleDownInterval     = "scale-down.interval"
	KeyMinParallelism        = "vertex.min-parallelism"
	KeyMaxParallelism        = "vertex.max-parallelism"
	KeyMaxScaleDownFactor    = "scale-down.max-factor"
	KeyMaxScaleUpFactor      = "scale-up.max-factor"
	KeyCatchUpDuration       = "catch-up.duration"
	KeyRestartTime           = "restart.time"
	KeyExcludedVertices      = "vertex.exclude.ids"
	KeyHistoryMaxCount       = "history.max.count"
	KeyHistoryMaxAge         = "history.max.age"
	KeyBusyTimeAggregator    = "metrics.busy-time.aggregator"
	KeyBacklogLagThreshold   = "backlog-processing.lag-threshold"
	maxVertexParallelismCap  = 1 << 15
	maxExcludedVertices      = 1000
	maxHistoryCount          = 100
	maxDurationOption        = 366 * 24 * time.Hour
	minMetricsWindow         = 10 * time.Second
	defaultMaxScaleUpFactor  = 100000.0
	defaultTargetUtilization = 0.7
)

// Config is the autoscaler's configuration for one job.
type Config struct {
	// Enabled turns the autoscaler on; ScalingEnabled lets it apply its decisions (off: it
	// only reports them).
	Enabled, ScalingEnabled bool
	// MetricsWindow is how far back the metrics of a decision reach; Stabilization how long
	// after a (re)start no metrics are collected.
	MetricsWindow, Stabilization time.Duration
	// TargetUtilization is the busy share each vertex is scaled to; a vertex whose
	// utilization stays within TargetUtilization ± UtilizationBoundary is left alone.
	TargetUtilization, UtilizationBoundary float64
	// UtilizationMin and UtilizationMax, when set (above 0), are the band's bounds instead.
	UtilizationMin, UtilizationMax float64
	// ScaleDownInterval delays a scale-down until it has been recommended that long (0: at once).
	ScaleDownInterval time.Duration
	// MinParallelism and MaxParallelism bound every vertex (MaxParallelism also by its key groups).
	MinParallelism, MaxParallelism int
	// MaxScaleDownFactor and MaxScaleUpFactor bound one decision's change: a vertex goes to
	// at least 1-MaxScaleDownFactor and at most 1+MaxScaleUpFactor times its parallelism.
	MaxScaleDownFactor, MaxScaleUpFactor float64
	// CatchUpDuration is the time a vertex is given to work off its backlog (and the input
	// of a restart); RestartTime the restart a rescale is expected to cost.
	CatchUpDuration, RestartTime time.Duration
	// Excluded are vertex ids never rescaled.
	Excluded []string
	// HistoryMaxCount and HistoryMaxAge bound the scaling history kept.
	HistoryMaxCount int
	HistoryMaxAge   time.Duration
	// BusyAggregator is how the subtasks' busy time is aggregated: MAX, AVG or MIN.
	BusyAggregator string
	// BacklogLagThreshold is the backlog, in time of input, above which a source is
	// processing backlog: while one is, nothing scales down.
	BacklogLagThreshold time.Duration
}

// Defaults are the Apache operator's defaults.
func Defaults() Config {
	return Config{
		ScalingEnabled: true, MetricsWindow: 15 * time.Minute, Stabilization: 5 * time.Minute,
		TargetUtilization: defaultTargetUtilization, UtilizationBoundary: 0.3, ScaleDownInterval: time.Hour,
		MinParallelism: 1, MaxParallelism: 200, MaxScaleDownFactor: 0.6, MaxScaleUpFactor: defaultMaxScaleUpFactor,
		CatchUpDuration: 30 * time.Minute, RestartTime: 5 * time.Minute, HistoryMaxCount: 3, HistoryMaxAge: 24 * time.Hour,
		BusyAggregator: "MAX", BacklogLagThreshold: 5 * time.Minute,
	}
}

// Band is the utilization a vertex may run at without being rescaled: utilization.min and
// utilization.max where set, else the target utilization ± its boundary, within [0, 1].
func (c Config) Band() (lower, upper float64) {
	lower, upper = max(c.TargetUtilization-c.UtilizationBoundary, 0), min(c.TargetUtilization+c.UtilizationBoundary, 1)
	if c.UtilizationMin > 0 {
		lower = c.UtilizationMin
	}
	if c.UtilizationMax > 0 {
		upper = c.UtilizationMax
	}
	return lower, upper
}

// options reads one job's options under either prefix, Prefix first.
type options struct {
	conf map[string]string
	errs []string
}

func (o *options) get(keys ...string) (string, string, bool) {
	for _, p := range []string{Prefix, FallbackPrefix} {
		for _, k := range keys {
			if v, ok := o.conf[p+k]; ok {
				return p + k, strings.TrimSpace(v), true
			}
		}
	}
	return "", "", false
}

func (o *options) fail(key, v, want string) {
	o.errs = append(o.errs, fmt.Sprintf("%s %q: want %s", key, v, want))
}

func (o *options) bool(dst *bool, keys ...string) {
	if k, v, ok := o.get(keys...); ok {
		b, err := strconv.ParseBool(strings.ToLower(v))
		if err != nil {
			o.fail(k, v, "true or false")
			return
		}
		*dst = b
	}
}

func (o *options) duration(dst *time.Duration, lo time.Duration, dur func(string) (time.Duration, error), keys ...string) {
	if k, v, ok := o.get(keys...); ok {
		d, err := dur(v)
		if err != nil || d < lo || d > maxDurationOption {
			o.fail(k, v, fmt.Sprintf("a duration from %s to %s", lo, maxDurationOption))
			return
		}
		*dst = d
	}
}

func (o *options) float(dst *float64, lo, hi float64, keys ...string) {
	if k, v, ok := o.get(keys...); ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || f < lo || f > hi {
			o.fail(k, v, fmt.Sprintf("a number from %g to %g", lo, hi))
			return
		}
		*dst = f
	}
}

func (o *options) int(dst *int, lo, hi int, keys ...string) {
	if k, v, ok := o.get(keys...); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			o.fail(k, v, fmt.Sprintf("a whole number from %d to %d", lo, hi))
			return
		}
		*dst = n
	}
}

// ParseConfig reads a job's autoscaler options from its (flattened) Flink configuration,
// durations read by dur as Flink reads them. Every option is bounded; each one out of its
// bounds is named in the error, and the job is then not autoscaled.
func ParseConfig(conf map[string]string, dur func(string) (time.Duration, error)) (Config, error) {
	c := Defaults()
	o := &options{conf: conf}
	o.bool(&c.Enabled, KeyEnabled)
	o.bool(&c.ScalingEnabled, KeyScalingEnabled)
	o.duration(&c.MetricsWindow, minMetricsWindow, dur, KeyMetricsWindow)
	o.duration(&c.Stabilization, 0, dur, KeyStabilization)
	o.float(&c.TargetUtilization, 0.01, 1, KeyTargetUtilization, KeyTargetUtilizationOld)
	o.float(&c.UtilizationBoundary, 0, 1, KeyUtilizationBoundary)
	o.float(&c.UtilizationMin, 0, 1, KeyUtilizationMin)
	o.float(&c.UtilizationMax, 0, 1, KeyUtilizationMax)
	o.duration(&c.ScaleDownInterval, 0, dur, KeyScaleDownInterval)
	o.int(&c.MinParallelism, 1, maxVertexParallelismCap, KeyMinParallelism)
	o.int(&c.MaxParallelism, 1, maxVertexParallelismCap, KeyMaxParallelism)
	o.float(&c.MaxScaleDownFactor, 0, 1, KeyMaxScaleDownFactor)
	o.float(&c.MaxScaleUpFactor, 0, defaultMaxScaleUpFactor, KeyMaxScaleUpFactor)
	o.duration(&c.CatchUpDuration, 0, dur, KeyCatchUpDuration)
	o.duration(&c.RestartTime, 0, dur, KeyRestartTime)
	o.int(&c.HistoryMaxCount, 0, maxHistoryCount, KeyHistoryMaxCount)
	o.duration(&c.HistoryMaxAge, 0, dur, KeyHistoryMaxAge)
	o.duration(&c.BacklogLagThreshold, 0, dur, KeyBacklogLagThreshold)
	if k, v, ok := o.get(KeyExcludedVertices); ok && v != "" {
		for _, id := range strings.Split(v, ",") {
			c.Excluded = append(c.Excluded, strings.TrimSpace(id))
		}
		if len(c.Excluded) > maxExcludedVertices {
			o.fail(k, v[:min(len(v), 64)]+"…", fmt.Sprintf("at most %d vertex ids", maxExcludedVertices))
		}
	}
	if k, v, ok := o.get(KeyBusyTimeAggregator); ok {
		switch up := strings.ToUpper(v); up {
		case "MAX", "AVG", "MIN":
			c.BusyAggregator = up
		default:
			o.fail(k, v, "MAX, AVG or MIN")
		}
	}
	if lo, hi := c.Band(); lo > c.TargetUtilization || hi < c.TargetUtilization {
		o.errs = append(o.errs, fmt.Sprintf("the utilization band %g–%g does not hold the target %g", lo, hi, c.TargetUtilization))
	}
	if c.MinParallelism > c.MaxParallelism {
		o.errs = append(o.errs, fmt.Sprintf("%s%s %d is above %s%s %d", Prefix, KeyMinParallelism, c.MinParallelism, Prefix, KeyMaxParallelism, c.MaxParallelism))
	}
	if len(o.errs) > 0 {
		return c, fmt.Errorf("autoscaler options: %s", strings.Join(o.errs, "; "))
	}
	return c, nil
}
