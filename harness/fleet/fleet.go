package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/flinkop/flinkop/harness/envtest"
	"github.com/flinkop/flinkop/harness/podsim"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/controller"
)

// Config is one fleet run.
type Config struct {
	// N is the number of FlinkDeployments.
	N int
	// SlowPercent of the JobManagers stop answering for the latency phase.
	SlowPercent float64
	// Parallelism is the operator's reconcile workers (0: the default).
	Parallelism int
	// Changes is how many healthy deployments get a spec change in each latency phase
	// (0: min(N, 50)).
	Changes int
	// Steady is how long the fleet is held at steady state to count its API writes and REST
	// calls (0: one reconcile interval).
	Steady time.Duration
	// ReconcileInterval is the operator's kubernetes.operator.reconcile.interval (0: its
	// default); the latency phases spread their changes over two intervals, so every hung
	// JobManager is polled while they run.
	ReconcileInterval time.Duration
	// Timeout bounds each phase.
	Timeout time.Duration
	// Log receives progress lines (nil: none).
	Log io.Writer
}

// Run starts an API server and the operator and measures the fleet.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.N < 1 {
		return nil, errors.New("fleet: N must be at least 1")
	}
	cfg = cfg.withDefaults()
	env, err := envtest.Start()
	if err != nil {
		return nil, err
	}
	defer func() { _ = env.Stop() }()
	f := &fleet{cfg: cfg, env: env, tracker: newTracker(), rep: &Report{N: cfg.N, Slow: cfg.slowCount()}}
	return f.run(ctx)
}

func (c Config) withDefaults() Config {
	if c.Changes <= 0 {
		c.Changes = min(c.N, 50)
	}
	if c.ReconcileInterval <= 0 {
		c.ReconcileInterval = config.Defaults().ReconcileInterval
	}
	if c.Steady <= 0 {
		c.Steady = c.ReconcileInterval
	}
	if c.Timeout <= 0 {
		c.Timeout = 30 * time.Minute
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	return c
}

func (c Config) slowCount() int { return int(float64(c.N) * c.SlowPercent / 100) }

const namespace = "fleet"

type fleet struct {
	cfg     Config
	env     *envtest.Env
	tracker *tracker
	rest    *slowTransport
	api     *apiCounter
	sim     *podsim.Sim
	names   []string
	rep     *Report
}

func (f *fleet) logf(format string, args ...any) {
	_, _ = fmt.Fprintf(f.cfg.Log, "%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func (f *fleet) run(ctx context.Context) (*Report, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := f.env.Client
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil {
		return nil, err
	}
	f.sim = podsim.New(c, clock.RealClock{}, rand.New(rand.NewSource(1)))
	f.sim.Namespace = namespace
	go f.kubelet(ctx)
	go f.tracker.run(ctx, c, namespace)
	opCtx, stopOperator := context.WithCancel(ctx)
	done, err := f.startOperator(opCtx)
	if err != nil {
		stopOperator()
		return nil, err
	}
	if err := f.phases(ctx); err != nil {
		stopOperator()
		return f.rep, err
	}
	f.rep.HeapMB, f.rep.RSSMB = memory()
	stopOperator()
	<-done
	heap, _ := memory()
	f.rep.OperatorHeapMB = f.rep.HeapMB - heap
	f.rep.FloorParallel, f.rep.FloorSerial, err = floor(ctx, c, f.rep.ConvergeWrites)
	return f.rep, err
}

// kubelet lets the pod simulator play kubelet and the JobManagers' clocks run.
func (f *fleet) kubelet(ctx context.Context) {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = f.sim.Sync(ctx)
			f.sim.Tick()
		}
	}
}

// startOperator starts the manager as cmd/flink-operator wires it; done closes once it stopped.
func (f *fleet) startOperator(ctx context.Context) (<-chan struct{}, error) {
	f.api = &apiCounter{}
	cfg := controller.WithRateLimits(f.env.Config, controller.DefaultQPS, controller.DefaultBurst)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { f.api.inner = rt; return f.api })
	f.rest = &slowTransport{inner: f.sim}
	skip := true
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: f.env.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: ctrlconfig.Controller{SkipNameValidation: &skip}, Cache: controller.CacheOptions([]string{namespace}),
	})
	if err != nil {
		return nil, fmt.Errorf("manager: %w", err)
	}
	opts := config.Defaults()
	opts.ReconcileInterval = f.cfg.ReconcileInterval
	setup := controller.Setup{Options: opts, Transport: f.rest, Parallelism: f.cfg.Parallelism}
	if err := setup.NewFlinkDeploymentReconciler(mgr).SetupWithManager(mgr); err != nil {
		return nil, err
	}
	if err := setup.NewFlinkSessionJobReconciler(mgr).SetupWithManager(mgr); err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			f.logf("operator: %v", err)
		}
	}()
	return done, nil
}

// create makes the N deployments with 16 writers.
func (f *fleet) create(ctx context.Context) error {
	f.names = make([]string, f.cfg.N)
	for i := range f.names {
		f.names[i] = fmt.Sprintf("job-%05d", i)
	}
	return parallel(ctx, 16, len(f.names), func(ctx context.Context, i int) error {
		return f.env.Client.Create(ctx, deployment(f.names[i]))
	})
}

// parallel runs do for 0..n-1 on workers goroutines and returns the first error.
func parallel(ctx context.Context, workers, n int, do func(context.Context, int) error) error {
	next := make(chan int)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := do(ctx, i); err != nil {
					once.Do(func() { first = err })
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}
