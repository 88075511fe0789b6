// Command flink-operator is the Flinkop operator: it reconciles FlinkDeployments,
// FlinkSessionJobs, FlinkStateSnapshots and FlinkBlueGreenDeployments (flink.apache.org/v1beta1)
// in the watched namespaces, and serves their admission webhooks.
//
//	flink-operator [--version] [--kubeconfig F] [--namespaces a,b] [--leader-elect]
//	               [--metrics-bind-address :8080] [--metrics-secure=true] [--health-probe-bind-address :8081]
//	               [--pprof-bind-address 0]
//	               [--operator-config operator.yaml] [--reconcile-parallelism N] [--zap-log-level info]
//	               [--kube-api-qps 100] [--kube-api-burst 200] [--rest-answer-budget N] [--rest-answer-budget-per-namespace N]
//	               [--jar-file-root DIR] [--jar-allowed-hosts h,*.d] [--jar-allowed-cidrs c,c]
//	               [--jar-temp-dir DIR] [--jar-max-bytes N] [--jar-credentials]
//	               [--jar-fetch-slots 2] [--jar-fetch-slots-per-namespace 1]
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/KimMachineGun/automemlimit/memlimit"
	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/controller"
	"github.com/flinkop/flinkop/operator/flink"
	"github.com/flinkop/flinkop/operator/metrics"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "flink-operator:", err)
		os.Exit(1)
	}
}

func run() error {
	var namespaces, metricsAddr, probeAddr, pprofAddr, configFile string
	var leaderElect, secureMetrics, version bool
	var parallelism string
	var qps float64
	var burst int
	var answerBudget, tenantBudget int64
	flag.StringVar(&namespaces, "namespaces", "", "comma-separated namespaces to watch (default: all)")
	flag.StringVar(&metricsAddr, "metrics-bind-address", ":8080", "address of the Prometheus metrics endpoint (0 disables it)")
	flag.BoolVar(&secureMetrics, "metrics-secure", true, "serve metrics over HTTPS to callers Kubernetes authenticates (TokenReview) and authorizes for GET /metrics (SubjectAccessReview)")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "address of the /healthz and /readyz probes")
	flag.StringVar(&pprofAddr, "pprof-bind-address", "0", "address of Go's /debug/pprof profiles, unauthenticated: bind it to loopback only (0 disables it)")
	flag.BoolVar(&leaderElect, "leader-elect", false, "elect a leader, so only one replica reconciles")
	flag.BoolVar(&version, "version", false, "print the operator's version and exit")
	flag.StringVar(&configFile, "operator-config", "", "YAML file of kubernetes.operator.* options (default: the Apache defaults)")
	flag.StringVar(&parallelism, "reconcile-parallelism", "", "resources of each kind reconciled at once, 1 to 1000 or -1 for 1000 (default: kubernetes.operator.reconcile.parallelism of --operator-config, else 200)")
	flag.Float64Var(&qps, "kube-api-qps", controller.DefaultQPS, "client-side limit of Kubernetes API requests per second")
	flag.IntVar(&burst, "kube-api-burst", controller.DefaultBurst, "client-side burst of Kubernetes API requests")
	flag.Int64Var(&answerBudget, "rest-answer-budget", flink.DefaultAnswerBudget, "bytes of Flink REST answers read at once beyond each answer's first 64 KiB, in all (an answer that finds it spent is an error, retried)")
	flag.Int64Var(&tenantBudget, "rest-answer-budget-per-namespace", flink.DefaultTenantAnswerBudget, "the share of --rest-answer-budget the JobManagers of one namespace may hold")
	jars := jarFlags(flag.CommandLine)
	hooks := bindWebhookFlags(flag.CommandLine)
	zapOpts := zap.Options{}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	if version {
		fmt.Println("flink-operator", buildVersion())
		return nil
	}
	if flag.NArg() > 0 {
		return fmt.Errorf("no arguments expected, got %q (flags start with --)", flag.Args())
	}
	if answerBudget < flink.AnswerSmall || tenantBudget < flink.AnswerSmall {
		return fmt.Errorf("--rest-answer-budget (%d) and --rest-answer-budget-per-namespace (%d) are at least %d bytes", answerBudget, tenantBudget, flink.AnswerSmall)
	}
	// A resource whose reconcile keeps failing logs one "Reconciler error" line a minute.
	ctrl.SetLogger(controller.BoundRepeatedErrors(zap.New(zap.UseFlagOptions(&zapOpts)), clock.RealClock{}, controller.RepeatedErrorLogInterval))
	// The Go heap's soft limit: 90 % of the container's memory limit (its cgroup), unless
	// GOMEMLIMIT is set, or AUTOMEMLIMIT (a ratio, or off). Near the limit the collector runs
	// more often instead of the pod being OOM-killed. A limit it cannot read (no cgroup) is
	// logged and leaves Go's default: no reason not to start.
	_, _ = memlimit.Set(memlimit.WithProvider(memlimit.FromCgroup),
		memlimit.WithLogger(slog.New(logr.ToSlogHandler(ctrl.Log.WithName("memlimit")))))

	live, err := loadOptions(configFile)
	if err != nil {
		return err
	}
	flat := live.Flat()
	for _, w := range config.Check(flat) {
		ctrl.Log.WithName("config").Info("Warning: "+w, "file", configFile)
	}
	if parallelism != "" {
		flat[config.KeyReconcileParallelism] = parallelism
	}
	workers, err := config.ReconcileParallelism(flat)
	if err != nil {
		return err
	}
	maxSnapshots, err := config.SnapshotMaxConcurrent(flat)
	if err != nil {
		return err
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := flinkv1beta1.AddToScheme(scheme); err != nil {
		return err
	}
	mgrOpts := ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: metricsAddr, SecureServing: secureMetrics},
		HealthProbeBindAddress: probeAddr, PprofBindAddress: pprofAddr, LeaderElection: leaderElect, LeaderElectionID: "flinkop.flink.apache.org",
		MapperProvider: controller.MapperProvider,
	}
	given := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if err := processOptions(&mgrOpts, flat, given); err != nil {
		return err
	}
	if secureMetrics {
		mgrOpts.Metrics.FilterProvider = filters.WithAuthenticationAndAuthorization
	}
	watched, err := cacheNamespaces(namespaces, live, flat)
	if err != nil {
		return err
	}
	mgrOpts.Cache = controller.CacheOptions(watched)
	restConfig, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("no Kubernetes API to talk to (in a pod, its service account; else --kubeconfig or $KUBECONFIG): %w", err)
	}
	mgr, err := ctrl.NewManager(controller.WithRateLimits(restConfig, float32(qps), burst), mgrOpts)
	if err != nil {
		return fmt.Errorf("manager: %w", err)
	}
	host, _ := os.Hostname()
	rec, err := metrics.NewForPod(ctrlmetrics.Registry, metrics.Pod{Host: host, Name: os.Getenv("POD_NAME"), Namespace: os.Getenv("POD_NAMESPACE")})
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	fetcher, err := jars.fetcher()
	if err != nil {
		return err
	}
	snapshotsOn := snapshotsAvailable(mgr, live.Options().SnapshotResources)
	live.Constrain(func(o config.Options) config.Options {
		o.SnapshotResources = o.SnapshotResources && snapshotsOn
		return o
	})
	if err := watchOptions(mgr, live, configFile, flat); err != nil {
		return err
	}
	events, err := controller.NewEventRecorder(mgr)
	if err != nil {
		return err
	}
	canaries := newCanaries(mgr, live)
	scope := controller.NewScopeWatch(live, mgr.GetClient())
	if err := mgr.Add(scope); err != nil {
		return err
	}
	setup := controller.Setup{
		Live: live, Metrics: rec, Jars: fetcher, JarCredentials: jars.credentials, Parallelism: workers,
		JarFetchSlots: jars.fetchSlots, JarFetchSlotsPerNamespace: jars.fetchSlotsPerNS,
		AnswerBudget:  flink.NewAnswerBudget(answerBudget, tenantBudget),
		SnapshotSlots: controller.NewSnapshotSlots(maxSnapshots), Events: events, Canaries: canaries, Scope: scope,
		TLS: flink.NewTLSTransports(flink.OperatorStoresFromEnv(os.Getenv), clock.RealClock{}),
	}
	if err := setup.NewFlinkDeploymentReconciler(mgr).SetupWithManager(mgr); err != nil {
		return err
	}
	if err := setup.NewFlinkSessionJobReconciler(mgr).SetupWithManager(mgr); err != nil {
		return err
	}
	if err := setupSnapshots(mgr, setup, snapshotsOn); err != nil {
		return err
	}
	if crdInstalled(mgr, "FlinkBlueGreenDeployment", "FlinkBlueGreenDeployment controller not started") {
		if err := setup.NewFlinkBlueGreenDeploymentReconciler(mgr).SetupWithManager(mgr); err != nil {
			return err
		}
	}
	if err := addHealth(mgr, canaries); err != nil {
		return err
	}
	if err := hooks.setup(mgr, live); err != nil {
		return err
	}
	return mgr.Start(ctrl.SetupSignalHandler())
}

// buildVersion is the module version the binary was built at, else its VCS revision (with
// "-dirty" for uncommitted changes), else "devel".
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	switch {
	case rev == "":
		return "devel"
	case dirty:
		return rev + "-dirty"
	}
	return rev
}

// snapshotsAvailable reports whether snapshot resources are on (enabled) and their CRD is
// installed; an operator upgraded before its CRDs logs why and runs without them (no
// FlinkStateSnapshot controller, no savepoint records) rather than failing to start.
func snapshotsAvailable(mgr ctrl.Manager, enabled bool) bool {
	if !enabled {
		return false
	}
	return crdInstalled(mgr, "FlinkStateSnapshot", "FlinkStateSnapshot controller not started, savepoints not recorded as FlinkStateSnapshots")
}

// crdInstalled reports whether the CRD of kind is installed, and logs what is off when not.
func crdInstalled(mgr ctrl.Manager, kind, off string) bool {
	gk := schema.GroupKind{Group: flinkv1beta1.GroupVersion.Group, Kind: kind}
	if _, err := mgr.GetRESTMapper().RESTMapping(gk, flinkv1beta1.GroupVersion.Version); meta.IsNoMatchError(err) {
		ctrl.Log.Error(err, off+": install the CRDs of config/crd (kubectl apply --server-side -k config/crd) and restart the operator")
		return false
	}
	return true
}

// setupSnapshots registers the FlinkStateSnapshot controller when snapshot resources are
// available (snapshotsAvailable).
func setupSnapshots(mgr ctrl.Manager, setup controller.Setup, available bool) error {
	if !available {
		return nil
	}
	return setup.NewFlinkStateSnapshotReconciler(mgr).SetupWithManager(mgr)
}
