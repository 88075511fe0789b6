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
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/flinkop/flinkop/harness"
	"github.com/flinkop/flinkop/harness/podsim"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/controller"
	"github.com/flinkop/flinkop/operator/flink"
	"github.com/flinkop/flinkop/operator/webhook"
)

// SandboxOptions configure RunSandbox; the zero value is the default sandbox.
type SandboxOptions struct {
	// Live are the operator options (nil: SandboxDefaults).
	Live *config.Live
	// Jars fetches session jobs' jars (nil: the harness's simulated internet, where https
	// jars come from repo.example.com: harness.Boundary).
	Jars *flink.JarFetcher
	// MetricsAddr serves the operator's /metrics over HTTPS to callers the API server
	// authenticates and authorizes for GET /metrics, as the operator does ("" or "0": none).
	MetricsAddr string
	// Webhook serves the operator's admission webhooks on the address the Env was started
	// with (Start(WithWebhooks())): the API server calls them for every apply.
	Webhook bool
}

// SandboxDefaults are the sandbox's operator options: the defaults, and the examples' state
// directories (file:///flink-data) and the fixtures' (file:///data) as where snapshots may
// record and dispose of savepoints.
const SandboxDefaults = "kubernetes.operator.snapshot.allowed-path-prefixes: file:///data,file:///flink-data\n"

// RunSandbox runs the real operator (a controller-runtime manager with the operator's cache
// options and all four controllers, on the real clock) and the pod simulator, which syncs
// every tick, on this API server until ctx ends. Resources applied with kubectl (see
// WriteKubeconfig) come to life with fakeflink behind them.
func (e *Env) RunSandbox(ctx context.Context, tick time.Duration, o SandboxOptions, report func(error)) error {
	if o.Live == nil {
		live, err := config.NewLive([]byte(SandboxDefaults))
		if err != nil {
			return err
		}
		o.Live = live
	}
	if o.Jars == nil {
		o.Jars = (&harness.Boundary{}).Fetcher()
	}
	sim := podsim.New(e.Client, clock.RealClock{}, rand.New(rand.NewSource(1)))
	metrics := metricsserver.Options{BindAddress: "0"}
	if o.MetricsAddr != "" && o.MetricsAddr != "0" {
		metrics = metricsserver.Options{BindAddress: o.MetricsAddr, SecureServing: true, FilterProvider: filters.WithAuthenticationAndAuthorization}
	}
	mgrOpts := ctrl.Options{
		Scheme: e.Scheme, Metrics: metrics, HealthProbeBindAddress: "0",
		Cache: controller.CacheOptions(nil), MapperProvider: controller.MapperProvider,
	}
	if o.Webhook {
		if e.Webhook == nil {
			return fmt.Errorf("the sandbox's webhooks need an API server started with WithWebhooks")
		}
		mgrOpts.WebhookServer = crwebhook.NewServer(crwebhook.Options{
			Host: e.Webhook.LocalServingHost, Port: e.Webhook.LocalServingPort, CertDir: e.Webhook.LocalServingCertDir,
		})
	}
	mgr, err := ctrl.NewManager(e.Config, mgrOpts)
	if err != nil {
		return fmt.Errorf("manager: %w", err)
	}
	if o.Webhook {
		webhook.Register(mgr.GetWebhookServer(), e.Scheme, o.Live.FlinkDefaults, webhook.WithIngressPolicies(webhook.LiveIngressPolicies(o.Live)))
	}
	setup := controller.Setup{Live: o.Live, Transport: sim, Jars: o.Jars}
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
