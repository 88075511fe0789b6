package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"os"
	"slices"
	"strings"
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
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
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
	// Bystanders adds, at the end, BystanderConfigMaps and BystanderPods that are not the
	// operator's and measures the operator's heap again.
	Bystanders bool
	// Hostile adds, after the steady state, hostile tenants' code: HostileJobManagers
	// JobManagers answering 20 MiB or endless answers and HostileConfigMaps ConfigMaps of 1 MB
	// with Flink's labels, and measures the operator's memory again.
	Hostile bool
	// Autoscaled runs every deployment's job under the autoscaler, on fakeflink's workload
	// model (a constant input its parallelism keeps up with), so the steady state measures
	// what the autoscaler's metric collection and state cost.
	Autoscaled bool
	// Mode is every deployment's spec.mode: "" (native, the default) or "standalone".
	Mode flinkv1beta1.KubernetesDeploymentMode
	// ConvergeOnly stops after the steady state (no wave, no latency phases) and measures the
	// floor with 16 writers only: what a run at 10,000 deployments can afford.
	ConvergeOnly bool
	// NoWave skips the upgrade wave: the latency phases follow the steady state.
	NoWave bool
	// FreshFloor measures the floor on a fresh API server, started after the operator's run
	// is over and the fleet's server stopped: in the state the operator's converge started
	// from. By default the floor runs on the fleet's server after the phases, which by then
	// holds the fleet (at 10,000 after a wave, it took over an hour there).
	FreshFloor bool
	// NoSerialFloor skips the floor's single-writer run (the 16-writer run stays): at 10,000
	// deployments it alone takes over half an hour.
	NoSerialFloor bool
	// HeapProfile, when set, is where the heap profile is written at steady state (read it
	// with go tool pprof; -focus=operator/ shows the operator's part).
	HeapProfile string
	// OperatorBinary, when set, is a flink-operator binary the fleet runs as its own process,
	// so that its heap, resident set and CPU time are measured apart from the harness's (the
	// default runs the operator in this process and estimates its heap from the profile).
	OperatorBinary string
	// OperatorMemoryLimit, when set, is the Go soft memory limit of that process (its
	// GOMEMLIMIT, e.g. 270MiB): what the operator's memory limit in its manifest sets.
	OperatorMemoryLimit string
	// APIServerFlags and EtcdFlags are extra flags (name=value) of the embedded API server
	// and etcd, after the package variables of the same names (a later flag of a name wins).
	APIServerFlags, EtcdFlags []string
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
	env, err := cfg.startAPIServer()
	if err != nil {
		return nil, err
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = env.Stop()
		}
	}()
	f := &fleet{cfg: cfg, env: env, tracker: newTracker(), rep: &Report{N: cfg.N, Slow: cfg.slowCount(), FreshFloor: cfg.FreshFloor}}
	rep, err := f.run(ctx)
	if err != nil || !cfg.FreshFloor {
		return rep, err
	}
	stopped = true
	if err := env.Stop(); err != nil {
		return rep, fmt.Errorf("stop the fleet's API server: %w", err)
	}
	return rep, f.freshFloor(ctx)
}

// startAPIServer starts an API server and etcd with the fleet's flags and c's.
func (c Config) startAPIServer() (*envtest.Env, error) {
	return envtest.Start(envtest.WithFlags(append(slices.Clone(APIServerFlags), c.APIServerFlags...), append(slices.Clone(EtcdFlags), c.EtcdFlags...)))
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
	world   *apiCounter // the pod simulator's and the fakeflink clusters' requests
	sim     *podsim.Sim
	proc    *operatorProcess // nil: the operator runs in this process
	names   []string
	rep     *Report
	// convergedStatus is a converged deployment's status: what the floor's status updates write.
	convergedStatus flinkv1beta1.FlinkDeploymentStatus
}

func (f *fleet) logf(format string, args ...any) {
	_, _ = fmt.Fprintf(f.cfg.Log, "%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func (f *fleet) run(ctx context.Context) (*Report, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := f.env.Client
	var err error
	if err = c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil {
		return nil, err
	}
	f.world = &apiCounter{}
	simClient, err := f.countedClient(f.world)
	if err != nil {
		return nil, err
	}
	f.sim = podsim.New(simClient, clock.RealClock{}, rand.New(rand.NewSource(1)))
	f.sim.Namespace = namespace
	f.sim.Parallel = 16 // one by one, the simulated kubelet would set the pace at thousands
	kc, err := f.kubeletCache(ctx)
	if err != nil {
		return nil, err
	}
	f.sim.Reader = kc
	if err := f.sim.WatchChanges(ctx, kc, fullSync); err != nil {
		return nil, err
	}
	if err := f.tracker.follow(ctx, kc); err != nil {
		return nil, err
	}
	go f.kubelet(ctx)
	opCtx, stopOperator := context.WithCancel(ctx)
	done, err := f.startOperator(opCtx)
	if err != nil {
		stopOperator()
		return nil, err
	}
	err = f.phases(ctx)
	if err == nil && !f.cfg.FreshFloor {
		// The floor on the same API server, before bystanders grow it; the operator idles at
		// steady state meanwhile (no writes).
		f.logf("the floor: %d writes by a plain client", f.rep.ConvergeWrites)
		f.rep.FloorParallel, f.rep.FloorSerial, err = f.floor(ctx, c, f.env.Config)
	}
	if err == nil && f.cfg.Bystanders {
		err = f.bystanders(ctx)
	}
	f.rep.Failures = f.api.failures() // before the operator stops: its cut-off calls are no failures
	stopOperator()
	<-done
	if f.proc != nil && err == nil {
		_ = os.RemoveAll(f.proc.dir) // kept after a failure: its log
	}
	return f.rep, err
}

// fullSync is how often the pod simulator visits every Deployment; in between it visits those
// whose objects changed (podsim.Sim.WatchChanges).
const fullSync = 30 * time.Second

// kubelet lets the pod simulator play kubelet and the JobManagers' clocks run.
func (f *fleet) kubelet(ctx context.Context) {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	var logged time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := f.sim.Sync(ctx); err != nil && ctx.Err() == nil && time.Since(logged) > 30*time.Second {
				f.logf("pod simulator: %v", firstLine(err.Error()))
				logged = time.Now()
			}
			f.sim.Tick()
		}
	}
}

// startOperator starts the manager as cmd/flink-operator wires it, in this process or (with
// Config.OperatorBinary) as that process; done closes once it stopped.
func (f *fleet) startOperator(ctx context.Context) (<-chan struct{}, error) {
	f.api = &apiCounter{}
	f.rest = &slowTransport{inner: f.sim}
	if f.cfg.OperatorBinary != "" {
		return f.startProcess(ctx)
	}
	cfg := controller.WithRateLimits(f.env.Config, controller.DefaultQPS, controller.DefaultBurst)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { f.api.inner = rt; return f.api })
	skip := true
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: f.env.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: ctrlconfig.Controller{SkipNameValidation: &skip}, Cache: controller.CacheOptions([]string{namespace}),
		MapperProvider: controller.MapperProvider,
	})
	if err != nil {
		return nil, fmt.Errorf("manager: %w", err)
	}
	opts := config.Defaults()
	opts.ReconcileInterval = f.cfg.ReconcileInterval
	events, err := controller.NewEventRecorder(mgr)
	if err != nil {
		return nil, err
	}
	setup := controller.Setup{Options: opts, Transport: f.rest, Parallelism: f.cfg.Parallelism, Events: events}
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
		return f.env.Client.Create(ctx, deployment(f.names[i], f.cfg.Autoscaled, f.cfg.Mode))
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

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
