package config

import (
	"fmt"
	"time"
)

// Bounds of the options a resource may set in its flinkConfiguration: each keeps one
// resource from making the operator poll its JobManager, or the API server, without pause.
const (
	// MaxDuration bounds every duration option.
	MaxDuration = 365 * 24 * time.Hour
	// MinPollInterval is the shortest reconcile and progress-check interval.
	MinPollInterval = time.Second
	// MinPeriodicSavepoint is the shortest periodic savepoint or checkpoint interval (0 turns
	// them off), and the shortest time between two of a cron schedule's.
	MinPeriodicSavepoint = 30 * time.Second
	// MinClientTimeout and MaxClientTimeout bound one Flink REST call.
	MinClientTimeout = time.Second
	MaxClientTimeout = 5 * time.Minute
	// MaxSubmissionTimeout bounds a jar's run call, and a job's cancel call: each holds a
	// reconcile worker while it lasts.
	MaxSubmissionTimeout = 30 * time.Minute
	// MaxExceptionEvents and MaxStackLines bound the JobException Events of a reconcile and
	// the stack trace lines of each (an Event holds 1,024 bytes).
	MaxExceptionEvents = 50
	MaxStackLines      = 100
)

// checkBounds returns an error for each option of conf whose value is out of its bounds.
func (o Options) checkBounds(conf map[string]string) []string {
	var errs []string
	check := func(key string, v time.Duration, ok bool, rule string) {
		if _, set := conf[key]; set && !ok {
			errs = append(errs, fmt.Sprintf("%s: %s %s", key, v, rule))
		}
	}
	check(KeyReconcileInterval, o.ReconcileInterval, o.ReconcileInterval >= MinPollInterval, fmt.Sprintf("is shorter than %s", MinPollInterval))
	check(KeyProgressCheckInterval, o.ProgressCheckInterval, o.ProgressCheckInterval >= MinPollInterval, fmt.Sprintf("is shorter than %s", MinPollInterval))
	for key, p := range map[string]Periodic{KeyPeriodicSavepoint: o.PeriodicSavepoint, KeyPeriodicCheckpoint: o.PeriodicCheckpoint} {
		// A cron expression is bounded where it is used (Periodic.Next).
		check(key, p.Every, p.Every == 0 || p.Every >= MinPeriodicSavepoint,
			fmt.Sprintf("is shorter than %s (0 turns periodic snapshots off)", MinPeriodicSavepoint))
	}
	check(KeyCanaryTimeout, o.CanaryTimeout, o.CanaryTimeout >= MinPollInterval, fmt.Sprintf("is shorter than %s", MinPollInterval))
	check(KeyRestReadyDelay, o.RestReadyDelay, o.RestReadyDelay >= MinPollInterval, fmt.Sprintf("is shorter than %s", MinPollInterval))
	check(KeyHealthRestartsWindow, o.HealthRestartsWindow, o.HealthRestartsWindow >= MinPollInterval, fmt.Sprintf("is shorter than %s", MinPollInterval))
	check(KeyFlinkClientTimeout, o.FlinkClientTimeout, o.FlinkClientTimeout >= MinClientTimeout && o.FlinkClientTimeout <= MaxClientTimeout,
		fmt.Sprintf("is not between %s and %s", MinClientTimeout, MaxClientTimeout))
	check(KeyFlinkCancelTimeout, o.FlinkCancelTimeout, o.FlinkCancelTimeout >= MinClientTimeout && o.FlinkCancelTimeout <= MaxSubmissionTimeout,
		fmt.Sprintf("is not between %s and %s", MinClientTimeout, MaxSubmissionTimeout))
	check(KeyJobSubmissionTimeout, o.JobSubmissionTimeout, o.JobSubmissionTimeout >= MinClientTimeout && o.JobSubmissionTimeout <= MaxSubmissionTimeout,
		fmt.Sprintf("is not between %s and %s", MinClientTimeout, MaxSubmissionTimeout))
	return errs
}
