package envtest

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"time"

	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	crenvtest "sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/flinkop/flinkop/harness"
	"github.com/flinkop/flinkop/harness/podsim"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/controller"
)

// RunSandbox runs the real operator (a controller-runtime manager with the operator's cache
// options and all four controllers, on the real clock) and the pod simulator, which syncs
// every tick, on this API server until ctx ends. Resources applied with kubectl (see
// WriteKubeconfig) come to life with fakeflink behind them; session jobs' https jars come
// from the harness's simulated internet (repo.example.com, harness.Boundary).
func (e *Env) RunSandbox(ctx context.Context, tick time.Duration, report func(error)) error {
	sim := podsim.New(e.Client, clock.RealClock{}, rand.New(rand.NewSource(1)))
	mgr, err := ctrl.NewManager(e.Config, ctrl.Options{
		Scheme: e.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache: controller.CacheOptions(nil), MapperProvider: controller.MapperProvider,
	})
	if err != nil {
		return fmt.Errorf("manager: %w", err)
	}
	setup := controller.Setup{Options: config.Defaults(), Transport: sim, Jars: (&harness.Boundary{}).Fetcher()}
	for _, r := range []interface{ SetupWithManager(ctrl.Manager) error }{
		setup.NewFlinkDeploymentReconciler(mgr), setup.NewFlinkSessionJobReconciler(mgr),
		setup.NewFlinkStateSnapshotReconciler(mgr), setup.NewFlinkBlueGreenDeploymentReconciler(mgr),
	} {
		if err := r.SetupWithManager(mgr); err != nil {
			return err
		}
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return <-done
		case err := <-done:
			return fmt.Errorf("manager stopped: %w", err)
		case <-t.C:
			if err := sim.Sync(ctx); err != nil && ctx.Err() == nil && report != nil {
				report(err)
			}
			sim.Tick()
		}
	}
}

// WriteKubeconfig writes a kubeconfig of an administrator of this API server to path.
func (e *Env) WriteKubeconfig(path string) error {
	u, err := e.env.AddUser(crenvtest.User{Name: "sandbox-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return fmt.Errorf("sandbox user: %w", err)
	}
	data, err := u.KubeConfig()
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	return os.WriteFile(path, data, 0o600)
}
