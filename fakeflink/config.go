package fakeflink

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/flinkop/flinkop/fakeflink/workload"
)

// Configuration keys the fake reads. Everything else in the configuration is kept and served
// by /jobmanager/config but has no effect.
const (
	keySlots               = "taskmanager.numberOfTaskSlots"
	keyParallelism         = "parallelism.default"
	keyCheckpointInterval  = "execution.checkpointing.interval"
	keyCheckpointsDir      = "state.checkpoints.dir"
	keyCheckpointsDirV2    = "execution.checkpointing.dir"
	keySavepointsDir       = "state.savepoints.dir"
	keySavepointsDirV2     = "execution.checkpointing.savepoint-dir"
	keyNumRetained         = "state.checkpoints.num-retained"
	keyNumRetainedV2       = "execution.checkpointing.num-retained"
	keyHAType              = "high-availability.type"
	keyHALegacy            = "high-availability"
	keyHAClusterID         = "high-availability.cluster-id"
	keyHAStorageDir        = "high-availability.storageDir"
	keyHAStoragePath       = "high-availability.storage-path"
	keyJobResultStore      = "job-result-store.storage-path"
	keyK8sClusterID        = "kubernetes.cluster-id"
	keyRestartStrategy     = "restart-strategy.type"
	keyRestartAttempts     = "restart-strategy.fixed-delay.attempts"
	keyRestartDelay        = "restart-strategy.fixed-delay.delay"
	keyScheduler           = "jobmanager.scheduler"
	keySchedulerMode       = "scheduler-mode"
	keySlotRequestTimeout  = "slot.request.timeout"
	keyExceptionHistory    = "web.exception-history-size"
	keyResourceWait        = "jobmanager.adaptive-scheduler.resource-wait-timeout"
	keyRestorePath         = "execution.savepoint.path"
	keyRestorePathV2       = "execution.state-recovery.path"
	keyAllowNonRestored    = "execution.savepoint.ignore-unclaimed-state"
	keyAllowNonRestoredV2  = "execution.state-recovery.ignore-unclaimed-state"
	keyJobID               = "$internal.pipeline.job-id"
	keyStoreDuration       = "rest.async.store-duration"
	keyRuntimeMode         = "execution.runtime-mode"
	keyPipelineName        = "pipeline.name"
	KeyRecordsPerSecond    = "fakeflink.job.records-per-second" // records the fake job consumes per second (default 100)
	KeyRecords             = "fakeflink.job.records"            // records after which the job FINISHES (0: unbounded; BATCH default 10000)
	KeySessionJars         = "fakeflink.session.jars"           // jar names a session cluster lists from the start, as if in its image (comma-separated)
	defaultRecordsPerSec   = 100
	defaultBatchRecords    = 10000
	defaultRestartAttempts = 2147483647
)

// Settings is what the fake takes from a cluster's Flink configuration.
type Settings struct {
	Slots              int
	CheckpointInterval time.Duration
	CheckpointsDir     string
	SavepointsDir      string
	NumRetained        int
	HAEnabled          bool
	HAType             string // high-availability.type as given: kubernetes, zookeeper or a factory class
	HAClusterID        string
	JobResultStorePath string // where job results live (default <HA storage dir>/job-result-store)
	RestartAttempts    int
	RestartDelay       time.Duration
	Adaptive           bool
	StoreDuration      time.Duration
	// SlotWait is how long a job waits for slots it cannot get before it fails with
	// NoResourceAvailableException: slot.request.timeout (5 min), or the adaptive scheduler's
	// resource-wait-timeout (5 min; negative: for ever).
	SlotWait time.Duration
	// ExceptionHistory is how many of its newest exceptions a job keeps
	// (web.exception-history-size, 16; 0 keeps none).
	ExceptionHistory int
}

// conf is a flat Flink configuration.
type conf map[string]string

func (c conf) first(keys ...string) string {
	for _, k := range keys {
		if v := strings.TrimSpace(c[k]); v != "" {
			return v
		}
	}
	return ""
}

func (c conf) intOr(def int, keys ...string) (int, error) {
	v := c.first(keys...)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a number", keys[0], v)
	}
	return n, nil
}

func (c conf) durationOr(def time.Duration, key string) (time.Duration, error) {
	v := c.first(key)
	if v == "" {
		return def, nil
	}
	d, err := ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", key, err)
	}
	return d, nil
}

// ParseSettings reads the settings from a flat Flink configuration.
func ParseSettings(c map[string]string) (Settings, error) {
	cf := conf(c)
	var s Settings
	var err error
	if s.Slots, err = cf.intOr(1, keySlots); err != nil {
		return s, err
	}
	if s.CheckpointInterval, err = cf.durationOr(0, keyCheckpointInterval); err != nil {
		return s, err
	}
	s.CheckpointsDir = cf.first(keyCheckpointsDir, keyCheckpointsDirV2)
	s.SavepointsDir = cf.first(keySavepointsDir, keySavepointsDirV2)
	if s.NumRetained, err = cf.intOr(1, keyNumRetained, keyNumRetainedV2); err != nil {
		return s, err
	}
	ha := cf.first(keyHAType, keyHALegacy)
	s.HAEnabled = ha != "" && !strings.EqualFold(ha, "none")
	s.HAType = ha
	s.JobResultStorePath = cf.first(keyJobResultStore)
	if dir := cf.first(keyHAStorageDir, keyHAStoragePath); s.JobResultStorePath == "" && dir != "" {
		s.JobResultStorePath = strings.TrimSuffix(dir, "/") + "/job-result-store"
	}
	s.HAClusterID = cf.first(keyHAClusterID, keyK8sClusterID)
	strategy := strings.ToLower(cf.first(keyRestartStrategy))
	defAttempts := 0
	if s.CheckpointInterval > 0 || strategy == "fixed-delay" || strategy == "fixeddelay" {
		defAttempts = defaultRestartAttempts
	}
	if strategy == "none" || strategy == "off" || strategy == "disable" {
		defAttempts = 0
	}
	if s.RestartAttempts, err = cf.intOr(defAttempts, keyRestartAttempts); err != nil {
		return s, err
	}
	if s.RestartDelay, err = cf.durationOr(time.Second, keyRestartDelay); err != nil {
		return s, err
	}
	s.Adaptive = strings.EqualFold(cf.first(keyScheduler), "adaptive")
	if s.StoreDuration, err = cf.durationOr(5*time.Minute, keyStoreDuration); err != nil {
		return s, err
	}
	if s.ExceptionHistory, err = cf.intOr(16, keyExceptionHistory); err != nil {
		return s, err
	}
	if s.ExceptionHistory < 0 {
		return s, fmt.Errorf("%s must be at least 0", keyExceptionHistory) // BoundedFIFOQueue's rule
	}
	waitKey, wait := keySlotRequestTimeout, 5*time.Minute
	if s.Adaptive {
		waitKey = keyResourceWait
	}
	if strings.EqualFold(cf.first(keySchedulerMode), "reactive") {
		// Reactive mode waits for its resources for ever unless told otherwise
		// (ReactiveModeUtils#configureClusterForReactiveMode).
		waitKey, wait = keyResourceWait, -1
	}
	if s.SlotWait, err = cf.durationOr(wait, waitKey); err != nil {
		return s, err
	}
	if s.Slots < 1 {
		return s, fmt.Errorf("%s must be at least 1", keySlots)
	}
	return s, nil
}

// ProgramFromConfig is the job an application-mode JobManager runs, read from its
// configuration: parallelism.default, the restore path, the fixed job id and the fake job's
// rate and length.
func ProgramFromConfig(c map[string]string, jarURI, entryClass string, args []string) (Program, error) {
	cf := conf(c)
	p := Program{JarURI: jarURI, EntryClass: entryClass, Args: args, Name: cf.first(keyPipelineName)}
	var err error
	if p.Parallelism, err = cf.intOr(1, keyParallelism); err != nil {
		return p, err
	}
	p.RestorePath = cf.first(keyRestorePath, keyRestorePathV2)
	p.AllowNonRestoredState = strings.EqualFold(cf.first(keyAllowNonRestored, keyAllowNonRestoredV2), "true")
	if err := p.applyRates(cf); err != nil {
		return p, err
	}
	return p, p.applyVertices(c)
}

// applyVertices reads the program's workload, parallelism overrides and max parallelism.
func (p *Program) applyVertices(c map[string]string) error {
	keys := workloadKeys(c)
	spec, err := readWorkload(keys)
	if err != nil {
		return err
	}
	if spec != nil {
		if p.Records > 0 {
			return fmt.Errorf("%s: a workload is a streaming job's; this job is bounded", workload.KeyInput)
		}
		p.WorkloadConfig = keys
	}
	if v, ok := c[KeyParallelismOverrides]; ok {
		if p.ParallelismOverrides, err = parseOverrides(v); err != nil {
			return err
		}
	}
	if v, ok := c[KeyMaxParallelism]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n == 0 || n < -1 || n > UpperMaxParallelism {
			return fmt.Errorf("%s %q: want -1 (unset) or 1 to %d", KeyMaxParallelism, v, UpperMaxParallelism)
		}
		p.MaxParallelism = max(n, 0)
	}
	return nil
}

func (p *Program) applyRates(cf conf) error {
	rate, err := cf.intOr(defaultRecordsPerSec, KeyRecordsPerSecond)
	if err != nil {
		return err
	}
	def := 0
	if strings.EqualFold(cf.first(keyRuntimeMode), "batch") {
		def = defaultBatchRecords
	}
	records, err := cf.intOr(def, KeyRecords)
	if err != nil {
		return err
	}
	p.RecordsPerSecond, p.Records = int64(rate), int64(records)
	return nil
}

// ParseDuration reads a duration as Flink's TimeUtils.parseDuration does: the trimmed value's
// leading digits are the number, the rest (trimmed, lower-cased) a unit label; no label means
// milliseconds. Flink refuses what does not parse, and so does the fake.
func ParseDuration(s string) (time.Duration, error) {
	trimmed := strings.TrimSpace(s)
	if trimmed == "" {
		return 0, fmt.Errorf("argument is an empty- or whitespace-only string")
	}
	i := 0
	for i < len(trimmed) && trimmed[i] >= '0' && trimmed[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("text does not start with a number")
	}
	n, err := strconv.ParseInt(trimmed[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("the value '%s' cannot be re represented as 64bit number (numeric overflow)", trimmed[:i])
	}
	label := strings.ToLower(strings.TrimSpace(trimmed[i:]))
	unit, ok := timeUnitLabels[label]
	if !ok {
		return 0, fmt.Errorf("time interval unit label '%s' does not match any of the recognized units: %s", label, timeUnitList)
	}
	if n > int64(math.MaxInt64/unit) {
		return 0, fmt.Errorf("%s does not fit a duration", s)
	}
	return time.Duration(n) * unit, nil
}

// timeUnitLabels are the labels of Flink's TimeUtils.TimeUnit ("" is milliseconds): singular
// ones as they are, the others also with an "s".
var timeUnitLabels = func() map[string]time.Duration {
	out := map[string]time.Duration{"": time.Millisecond}
	for _, u := range []struct {
		d                  time.Duration
		singular, withPlur []string
	}{
		{24 * time.Hour, []string{"d"}, []string{"day"}},
		{time.Hour, []string{"h"}, []string{"hour"}},
		{time.Minute, []string{"min", "m"}, []string{"minute"}},
		{time.Second, []string{"s"}, []string{"sec", "second"}},
		{time.Millisecond, []string{"ms"}, []string{"milli", "millisecond"}},
		{time.Microsecond, []string{"µs"}, []string{"micro", "microsecond"}},
		{time.Nanosecond, []string{"ns"}, []string{"nano", "nanosecond"}},
	} {
		for _, l := range u.singular {
			out[l] = u.d
		}
		for _, l := range u.withPlur {
			out[l], out[l+"s"] = u.d, u.d
		}
	}
	return out
}()

const timeUnitList = "DAYS: (d | day | days), HOURS: (h | hour | hours), MINUTES: (min | m | minute | minutes), " +
	"SECONDS: (s | sec | secs | second | seconds), MILLISECONDS: (ms | milli | millis | millisecond | milliseconds), " +
	"MICROSECONDS: (µs | micro | micros | microsecond | microseconds), NANOSECONDS: (ns | nano | nanos | nanosecond | nanoseconds)"
