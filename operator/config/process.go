package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Options of the operator's process, read from its file once at start (a change waits for a
// restart, as in the Apache operator).
const (
	KeyLeaderElection         = "kubernetes.operator.leader-election.enabled"
	KeyLeaseName              = "kubernetes.operator.leader-election.lease-name"
	KeyLeaseDuration          = "kubernetes.operator.leader-election.lease-duration"
	KeyLeaseRenewDeadline     = "kubernetes.operator.leader-election.renew-deadline"
	KeyLeaseRetryPeriod       = "kubernetes.operator.leader-election.retry-period"
	KeyHealthProbe            = "kubernetes.operator.health.probe.enabled"
	KeyHealthProbePort        = "kubernetes.operator.health.probe.port"
	defaultHealthProbePort    = 8085
	defaultLeaseDuration      = 15 * time.Second
	defaultLeaseRenewDeadline = 10 * time.Second
	defaultLeaseRetryPeriod   = 2 * time.Second
)

// LeaderElection is how the operator's replicas elect the one that reconciles: a Lease named
// LeaseName in the operator's namespace.
type LeaderElection struct {
	Enabled                                   bool
	LeaseName                                 string
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// CheckLeaseName refuses an election the options turn on without its lease's name, as Apache
// does (an election the --leader-elect flag turns on takes the operator's own lease name).
func (le LeaderElection) CheckLeaseName() error {
	if le.Enabled && le.LeaseName == "" {
		return fmt.Errorf("invalid operator options: %s must be defined when operator leader election is enabled", KeyLeaseName)
	}
	return nil
}

// ReadLeaderElection reads the leader-election options from the operator's flat options,
// with the Apache operator's defaults. The durations must let a leader renew in time (lease
// duration > renew deadline > 1.2 × retry period, client-go's rule).
func ReadLeaderElection(flat map[string]string) (LeaderElection, error) {
	le := LeaderElection{LeaseDuration: defaultLeaseDuration, RenewDeadline: defaultLeaseRenewDeadline, RetryPeriod: defaultLeaseRetryPeriod}
	var errs []string
	if v, ok := flat[KeyLeaderElection]; ok {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %q is not true or false", KeyLeaderElection, v))
		}
		le.Enabled = b
	}
	le.LeaseName = strings.TrimSpace(flat[KeyLeaseName])
	for _, d := range []struct {
		key string
		dst *time.Duration
	}{{KeyLeaseDuration, &le.LeaseDuration}, {KeyLeaseRenewDeadline, &le.RenewDeadline}, {KeyLeaseRetryPeriod, &le.RetryPeriod}} {
		if v, ok := flat[d.key]; ok {
			parsed, err := ParseDuration(v)
			if err != nil || parsed <= 0 {
				errs = append(errs, fmt.Sprintf("%s: %q is not a positive duration", d.key, v))
				continue
			}
			*d.dst = parsed
		}
	}
	if len(errs) == 0 && (le.LeaseDuration <= le.RenewDeadline || le.RenewDeadline*5 <= le.RetryPeriod*6) {
		errs = append(errs, fmt.Sprintf("%s (%s) must exceed %s (%s), which must exceed 1.2 × %s (%s)",
			KeyLeaseDuration, le.LeaseDuration, KeyLeaseRenewDeadline, le.RenewDeadline, KeyLeaseRetryPeriod, le.RetryPeriod))
	}
	if len(errs) > 0 {
		return LeaderElection{}, fmt.Errorf("invalid operator options: %s", strings.Join(errs, "; "))
	}
	return le, nil
}

// HealthProbeAddress is where the operator serves /healthz and /readyz by its options: ":<port>"
// of KeyHealthProbePort (8085), or "0" (none) when KeyHealthProbe is false. set is false when
// neither option is given: the --health-probe-bind-address flag's value holds then.
func HealthProbeAddress(flat map[string]string) (addr string, set bool, err error) {
	enabled, port := true, defaultHealthProbePort
	if v, ok := flat[KeyHealthProbe]; ok {
		set = true
		if enabled, err = strconv.ParseBool(strings.TrimSpace(v)); err != nil {
			return "", false, fmt.Errorf("invalid operator options: %s: %q is not true or false", KeyHealthProbe, v)
		}
	}
	if v, ok := flat[KeyHealthProbePort]; ok {
		set = true
		if port, err = strconv.Atoi(strings.TrimSpace(v)); err != nil || port < 1 || port > 65535 {
			return "", false, fmt.Errorf("invalid operator options: %s: %q is not a port (1 to 65535)", KeyHealthProbePort, v)
		}
	}
	if !enabled {
		return "0", set, nil
	}
	return ":" + strconv.Itoa(port), set, nil
}

// Keys of the manager's start and stop, read at start.
const (
	KeyTerminationTimeout  = "kubernetes.operator.termination.timeout"
	KeyStopOnInformerError = "kubernetes.operator.startup.stop-on-informer-error"
	// DefaultTerminationTimeout is Apache's: how long reconciles in flight may finish when the
	// operator stops.
	DefaultTerminationTimeout = 10 * time.Second
	// DefaultCacheSyncTimeout is how long the caches may take to fill at start before the
	// operator stops (controller-runtime's, as Apache's informers wait 2 min).
	DefaultCacheSyncTimeout = 2 * time.Minute
)

// Lifecycle is how the operator's process starts and stops.
type Lifecycle struct {
	// TerminationTimeout bounds how long the reconciles in flight may finish at stop (0: none
	// waited for).
	TerminationTimeout time.Duration
	// CacheSyncTimeout is how long the caches may take to fill at start: DefaultCacheSyncTimeout
	// when an informer error stops the operator, else MaxDuration (informers retry for ever).
	CacheSyncTimeout time.Duration
}

// ReadLifecycle reads KeyTerminationTimeout and KeyStopOnInformerError, with Apache's defaults.
func ReadLifecycle(flat map[string]string) (Lifecycle, error) {
	lc := Lifecycle{TerminationTimeout: DefaultTerminationTimeout, CacheSyncTimeout: DefaultCacheSyncTimeout}
	var errs []string
	if v, ok := flat[KeyTerminationTimeout]; ok {
		d, err := ParseDuration(v)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", KeyTerminationTimeout, err))
		}
		lc.TerminationTimeout = d
	}
	if v, ok := flat[KeyStopOnInformerError]; ok {
		stop, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %q is not true or false", KeyStopOnInformerError, v))
		}
		if !stop {
			lc.CacheSyncTimeout = MaxDuration
		}
	}
	if len(errs) > 0 {
		return Lifecycle{}, fmt.Errorf("invalid operator options: %s", strings.Join(errs, "; "))
	}
	return lc, nil
}
