package main

import (
	"context"
	"os"

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
