package controller

import (
	"fmt"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/flink"
	"github.com/flinkop/flinkop/operator/metrics"
	"github.com/flinkop/flinkop/operator/observe"
)

// eventsAPI records through the events.k8s.io API: the manager's recorder, used only when
// NewEventRecorder cannot be built.
type eventsAPI struct{ rec events.EventRecorder }

func (e eventsAPI) Event(obj runtime.Object, eventtype, reason, message string) {
	e.rec.Eventf(obj, nil, eventtype, reason, "Reconcile", "%s", message)
}

// RESTResolver returns the base URL of a deployment's JobManager REST API.
type RESTResolver func(d *flinkv1beta1.FlinkDeployment) string

// ServiceDNS is the default RESTResolver: the REST Service's cluster DNS name.
func ServiceDNS(d *flinkv1beta1.FlinkDeployment) string {
	return fmt.Sprintf("http://%s.%s.svc:%d", act.RESTServiceName(d.Name), d.Namespace, act.RESTPort)
}

// Setup wires the FlinkDeployment reconciler into a manager.
type Setup struct {
	// Options are the operator-wide options, fixed (when Live is nil).
	Options config.Options
	// Live are the operator-wide options reloaded when their file changes (nil: Options).
	// Read once at set-up, for what is built then: the Flink clients' timeout
	// (flink.client.timeout) and whether snapshots are recorded (snapshot.resource.enabled).
	Live *config.Live
	// Resolver finds the JobManager REST API (default ServiceDNS).
	Resolver RESTResolver
	// Transport carries Flink REST calls (default: Go's default transport, and TLS's for
	// clusters that enable REST SSL). The harness serves every call, http and https, through it.
	Transport http.RoundTripper
	// TLS carries the calls to clusters that enable REST SSL when Transport is nil (default:
	// the system's CAs, no client certificate; the operator builds it from its
	// OPERATOR_*STORE_* environment).
	TLS *flink.TLSTransports
	// Clock is the time source (default: the real clock).
	Clock clock.PassiveClock
	// Metrics records Prometheus metrics (nil: none).
	Metrics *metrics.Recorder
	// AnswerBudget bounds the bytes of Flink REST answers read at once, in all and per
	// namespace (nil: a budget of flink.DefaultAnswerBudget for each reconciler built; the
	// operator shares one, sized by --rest-answer-budget).
	AnswerBudget *flink.AnswerBudget
	// Jars fetches the file:// and http(s):// jars of session jobs (default: Go's HTTP
	// client, DefaultJarFetchTimeout, DefaultJarMaxBytes).
	Jars *flink.JarFetcher
	// JarCredentials lets session jobs name a Secret with their jar's credentials
	// (sessionjob.AnnotationJarCredentials); the operator then needs get on Secrets.
	JarCredentials bool
	// JarFetchSlots and JarFetchSlotsPerNamespace bound the jar fetches of session jobs under
	// way at once, in all and per namespace (0: act.DefaultJarFetchSlots and
	// act.DefaultJarFetchSlotsPerNamespace).
	JarFetchSlots, JarFetchSlotsPerNamespace int
	// APIReader reads past the manager's cache, which holds only the operator's labelled
	// objects (nil: the reconciler's client; the manager's API reader in the operator).
	APIReader client.Reader
	// Events records the Events of the reconcilers built for a manager (nil: a
	// NewEventRecorder of each one's own; the operator shares one).
	Events EventRecorder
	// Parallelism is how many resources of each kind are reconciled at once
	// (kubernetes.operator.reconcile.parallelism; 0: its default).
	Parallelism int
	// SnapshotSlots bound the snapshots in flight across FlinkDeployments and FlinkSessionJobs
	// (kubernetes.operator.snapshot.max-concurrent; nil: no bound). Both reconcilers built from
	// one Setup share them.
	SnapshotSlots *SnapshotSlots
	// Canaries follows the canary resources of both reconcilers (nil: none).
	Canaries *Canaries
	// Scope enqueues the resources a change of the operator's scope admits (nil: none; the
	// operator's manager runs it).
	Scope *ScopeWatch
	// SecretReader reads those Secrets (default: the reconciler's client; the manager's
	// uncached API reader in the operator).
	SecretReader client.Reader

	// NoWriteFence lets reconciles act on a cached copy of their resource from before the
	// operator's own last write of it (see writeFence): only for the harness's test that shows
	// invariant 9 catching that.
	NoWriteFence bool

	// indexed: the reconciler's client is a manager's cache, which SetupWithManager gives
	// act.IndexApp.
	indexed bool
}

// NewFlinkDeploymentReconciler builds the reconciler for a manager (its client and events).
func (s Setup) NewFlinkDeploymentReconciler(mgr ctrl.Manager) *FlinkDeploymentReconciler {
	if s.APIReader == nil {
		s.APIReader = mgr.GetAPIReader()
	}
	s.indexed = true
	return s.Reconciler(mgr.GetClient(), s.events(mgr))
}

// Reconciler builds the reconciler from a client and an event recorder; the harness and tests
// call it directly, without a manager.
func (s Setup) Reconciler(c client.Client, rec EventRecorder) *FlinkDeploymentReconciler {
	s = s.withDefaults()
	rec = boundedEvents{rec}
	clients := s.clients(c)
	slots := act.NewServiceSlots(act.DefaultServiceSlots)
	observer := &observe.Observer{
		Client: c, RESTBudget: s.restBudget(), Lister: act.AppLister{Indexed: s.indexed}, Reader: s.APIReader,
		Snapshots: act.SnapshotLister{Enabled: s.Options.SnapshotResources, Indexed: s.indexed},
		Flink:     func(d *flinkv1beta1.FlinkDeployment) observe.FlinkAPI { return clients(d) },
	}
	r := &FlinkDeploymentReconciler{
		Client:   c,
		Recorder: rec,
		Clock:    s.Clock,
		Options:  s.Live,
		Metrics:  s.Metrics,
		Workers:  s.Parallelism,
		Observer: observer,
		Executor: &act.Executor{
			Client: c, HASelector: observe.HASelector, Reader: s.APIReader, Lister: act.AppLister{Indexed: s.indexed},
			Flink:        func(d *flinkv1beta1.FlinkDeployment) act.FlinkAPI { return clients(d) },
			ServiceSlots: slots,
		},
		SnapshotSlots: s.SnapshotSlots,
		Canaries:      s.Canaries,
		scope:         s.Scope,
		serviceSlots:  slots,
		indexApp:      s.indexed,
		fence:         writeFence{off: s.NoWriteFence},
	}
	observer.HealthCheck = func(d *flinkv1beta1.FlinkDeployment) bool {
		opts, _ := r.optionsFor(d)
		return opts.HealthCheck
	}
	return r
}

func (s Setup) withDefaults() Setup {
	if s.Resolver == nil {
		s.Resolver = ServiceDNS
	}
	if s.Clock == nil {
		s.Clock = clock.RealClock{}
	}
	if s.TLS == nil {
		s.TLS = flink.NewTLSTransports(flink.OperatorStores{}, s.Clock)
	}
	if s.Jars == nil {
		s.Jars = &flink.JarFetcher{}
	}
	if s.AnswerBudget == nil {
		s.AnswerBudget = flink.NewAnswerBudget(flink.DefaultAnswerBudget, flink.DefaultTenantAnswerBudget)
	}
	if s.Live == nil {
		s.Live = config.FixedOptions(s.Options)
	}
	s.Options = s.Live.Options()
	return s
}

// Retry back-off of a reconcile that returned an error: RetryBaseDelay after the first
// failure, doubling with each failure in a row, at most RetryMaxDelay. controller-runtime's
// default waits up to 1000 s and shares one bucket of 10 retries a second among all
// resources: when the API server timed out a few thousand creates of a 10,000-deployment
// fleet, those deployments waited 15 minutes and more for their next try. The client's own
// QPS limit and the API server's priority and fairness bound the load instead.
const (
	RetryBaseDelay = 5 * time.Millisecond
	RetryMaxDelay  = time.Minute
)

// retryLimiter is the controllers' per-resource retry back-off.
func retryLimiter() workqueue.TypedRateLimiter[reconcile.Request] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](RetryBaseDelay, RetryMaxDelay)
}

// queueOptions are a controller's options with n workers (0: the default parallelism): the
// retry back-off above, and a queue that serves resources in the order they became due. The
// FlinkDeployment and FlinkSessionJob controllers add a spec-change lane (laneOptions).
// controller-runtime's priority queue as its handlers feed it puts every object of its
// informer's first list (and every unchanged resync) behind every change, and keeps a
// requeued resource's priority: a resource listed at start-up with work in flight waits until
// no other resource has anything to do. In a 10,000-deployment fleet, 76 deployments created
// as the operator started were not reconciled once in the 20 minutes the others took to
// converge.
func queueOptions(n int) controller.Options {
	return controller.Options{MaxConcurrentReconciles: workers(n), RateLimiter: retryLimiter(), UsePriorityQueue: ptr.To(false)}
}

// workers is the reconcile worker count for n (0: the default parallelism).
func workers(n int) int {
	if n <= 0 {
		return config.DefaultReconcileParallelism
	}
	return n
}

// RESTBudgetCalls is how many client timeouts all REST reads of one reconcile may take
// together: the probe (GET /jobs/overview) and what follows it.
const RESTBudgetCalls = 2

// restBudget bounds the REST reads of one reconcile.
func (s Setup) restBudget() time.Duration {
	t := s.Options.FlinkClientTimeout
	if t <= 0 {
		t = flink.DefaultTimeout
	}
	return RESTBudgetCalls * t
}

// clients returns the REST clients of deployments' JobManagers, https:// to a cluster that
// serves REST over SSL (see deployedRESTSSL, which reads through c). s has its defaults.
func (s Setup) clients(c client.Reader) func(d *flinkv1beta1.FlinkDeployment) *flink.Client {
	return func(d *flinkv1beta1.FlinkDeployment) *flink.Client {
		o, _ := s.Live.For(d.Namespace) // a malformed namespace option keeps the operator-wide ones
		opts := []flink.Option{
			flink.WithTimeout(o.FlinkClientTimeout), flink.WithCancelTimeout(o.FlinkCancelTimeout), flink.WithSubmitTimeout(o.JobSubmissionTimeout),
			flink.WithAnswerBudget(s.AnswerBudget, d.Namespace),
		}
		base := s.Resolver(d)
		ssl := deployedRESTSSL(c, d)
		if ssl.Enabled {
			base = flink.HTTPS(base)
		}
		switch {
		case s.Transport != nil:
			opts = append(opts, flink.WithTransport(s.Transport))
		case ssl.Enabled:
			opts = append(opts, flink.WithTransport(s.TLS.For(ssl)))
		}
		return flink.NewClient(base, opts...)
	}
}
