package main

import (
	"context"
	"os"
	"slices"
	"strings"

	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/controller"
)

// loadOptions reads the operator options file (none: the defaults).
func loadOptions(path string) (*config.Live, error) {
	if path == "" {
		return config.NewLive(nil)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return config.NewLive(data)
}

// watchOptions reloads the options file while the operator runs, as the Apache operator's
// dynamic configuration does (kubernetes.operator.dynamic.config.enabled, every
// .check.interval): a change of the operator ConfigMap, which the kubelet writes through to
// the mounted file, takes effect without a restart.
func watchOptions(mgr ctrl.Manager, live *config.Live, path string, flat map[string]string) error {
	on, interval, err := config.DynamicConfig(flat)
	if err != nil || !on || path == "" {
		return err
	}
	log := ctrl.Log.WithName("config")
	return mgr.Add(controller.EveryReplica(func(ctx context.Context) error {
		live.Watch(ctx, path, interval, clock.RealClock{}, log)
		return nil
	}))
}

// cacheNamespaces are the namespaces the manager caches (none: all), and pins the live scope's
// namespaces unless kubernetes.operator.dynamic.namespaces.enabled is on. The --namespaces
// flag (comma-separated; the Helm chart's watchNamespaces, whose RBAC covers only those)
// bounds the cache; without it the cache holds kubernetes.operator.watched.namespaces as the
// operator started, or every namespace when they may change while it runs, so that a
// namespace added later is already in the cache.
func cacheNamespaces(flagValue string, live *config.Live, flat map[string]string) ([]string, error) {
	dynamic, err := config.DynamicNamespaces(flat)
	if err != nil {
		return nil, err
	}
	var flagged []string
	for _, ns := range strings.Split(flagValue, ",") {
		if ns = strings.TrimSpace(ns); ns != "" {
			flagged = append(flagged, ns)
		}
	}
	start := live.Scope()
	log := ctrl.Log.WithName("config")
	if !dynamic {
		pinned := start.Namespaces
		live.PinScope(func(s config.Scope) config.Scope {
			if !slices.Equal(s.Namespaces, pinned) {
				log.Info("Warning: " + config.KeyWatchedNamespaces + " changed; it applies at the next start unless " + config.KeyDynamicNamespaces + " is true")
			}
			s.Namespaces = pinned
			return s
		})
	}
	for _, ns := range start.Namespaces {
		if len(flagged) > 0 && !slices.Contains(flagged, ns) {
			log.Info("Warning: a watched namespace is outside --namespaces: the operator does not see it", "namespace", ns)
		}
	}
	switch {
	case len(flagged) > 0:
		return flagged, nil
	case dynamic:
		return nil, nil
	default:
		return start.Namespaces, nil
	}
}

// processOptions sets the manager's leader election, health probe address, shutdown timeout
// and cache sync timeout from the operator's options (read once at start), unless the flags that say the same were given:
// --leader-elect and --health-probe-bind-address win over the file.
func processOptions(opts *ctrl.Options, flat map[string]string, given map[string]bool) error {
	le, err := config.ReadLeaderElection(flat)
	if err != nil {
		return err
	}
	if !given["leader-elect"] {
		if err := le.CheckLeaseName(); err != nil {
			return err
		}
		opts.LeaderElection = le.Enabled
	}
	if le.LeaseName != "" {
		opts.LeaderElectionID = le.LeaseName
	}
	opts.LeaseDuration, opts.RenewDeadline, opts.RetryPeriod = &le.LeaseDuration, &le.RenewDeadline, &le.RetryPeriod
	addr, set, err := config.HealthProbeAddress(flat)
	if err != nil {
		return err
	}
	if set && !given["health-probe-bind-address"] {
		opts.HealthProbeBindAddress = addr
	}
	lc, err := config.ReadLifecycle(flat)
	if err != nil {
		return err
	}
	opts.GracefulShutdownTimeout, opts.Controller.CacheSyncTimeout = &lc.TerminationTimeout, lc.CacheSyncTimeout
	return nil
}
