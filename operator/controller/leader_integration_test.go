//go:build integration

package controller_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/harness/podsim"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/controller"
)

// The leader election timing of the test's two operators: short, so a failover takes seconds.
const (
	testLease   = 4 * time.Second
	testRenew   = 3 * time.Second
	testRetry   = 500 * time.Millisecond
	electionID  = "flinkop-failover-test"
	failoverJob = "orders"
)

// deploymentCreates counts the JobManager Deployments an operator creates.
type deploymentCreates struct {
	inner http.RoundTripper
	n     *atomic.Int64
}

func (d deploymentCreates) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/deployments") {
		d.n.Add(1)
	}
	return d.inner.RoundTrip(req)
}

// triggers records the trigger ids of the stop-with-savepoint requests it carries to inner.
type triggers struct {
	inner http.RoundTripper
	mu    sync.Mutex
	ids   map[string]bool
	sent  int
}

func (t *triggers) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/stop") && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		var r struct {
			TriggerID string `json:"triggerId"`
		}
		_ = json.Unmarshal(body, &r)
		t.mu.Lock()
		t.ids[r.TriggerID] = true
		t.sent++
		t.mu.Unlock()
	}
	return t.inner.RoundTrip(req)
}

// counts returns the stop-with-savepoint requests sent and their distinct trigger ids.
func (t *triggers) counts() (sent, distinct int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sent, len(t.ids)
}

// crashAfterStop carries REST calls to inner; the first stop-with-savepoint it carries is
// delivered, then the caller never hears back (the operator dies before it writes status).
type crashAfterStop struct {
	inner   http.RoundTripper
	stopped chan struct{}
	once    sync.Once
}

func (c *crashAfterStop) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.inner.RoundTrip(req)
	if req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/stop") {
		c.once.Do(func() { close(c.stopped) })
		<-req.Context().Done()
		return nil, req.Context().Err()
	}
	return resp, err
}

// TestLeaderFailoverDoesNothingTwice runs two operators with leader election on a real
// kube-apiserver. The leader stops (as a crashed pod stops renewing its lease) right after
// Flink accepted its stop-with-savepoint, before it could record the trigger in status; the
// other takes over within the lease duration, sees the savepoint in progress in the job's
// checkpoint history and asks for nothing while it runs, then finishes the upgrade from that
// savepoint (the job it stopped, with a savepoint status never recorded): one savepoint, one
// JobManager Deployment per generation, one job start on the upgraded cluster.
func TestLeaderFailoverDoesNothingTwice(t *testing.T) {
	ctx, env := startAPIServer(t)
	c := env.Client
	sim := podsim.New(c, clock.RealClock{}, rand.New(rand.NewSource(1)))
	var creates atomic.Int64
	start := func(ctx context.Context, rest http.RoundTripper) ctrl.Manager {
		cfg := controller.WithRateLimits(env.Config, controller.DefaultQPS, controller.DefaultBurst)
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return deploymentCreates{rt, &creates} })
		lease, renew, retry, skip := testLease, testRenew, testRetry, true
		mgr, err := ctrl.NewManager(cfg, ctrl.Options{
			Scheme: env.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
			Controller: ctrlconfig.Controller{SkipNameValidation: &skip}, Cache: controller.CacheOptions(nil),
			LeaderElection: true, LeaderElectionID: electionID, LeaderElectionNamespace: ns,
			LeaseDuration: &lease, RenewDeadline: &renew, RetryPeriod: &retry,
		})
		if err != nil {
			t.Fatal(err)
		}
		opts := config.Defaults()
		opts.ProgressCheckInterval = 500 * time.Millisecond
		setup := controller.Setup{Options: opts, Transport: rest}
		if err := setup.NewFlinkDeploymentReconciler(mgr).SetupWithManager(mgr); err != nil {
			t.Fatal(err)
		}
		go func() { _ = mgr.Start(ctx) }()
		return mgr
	}
	ctxA, stopA := context.WithCancel(ctx)
	defer stopA()
	flink := &triggers{inner: sim, ids: map[string]bool{}}
	crash := &crashAfterStop{inner: flink, stopped: make(chan struct{})}
	a := start(ctxA, crash)
	elected(t, a, 30*time.Second, "the first operator")
	b := start(ctx, flink)

	d := deployment(failoverJob, flinkv1beta1.UpgradeModeSavepoint)
	d.UID, d.Generation = "", 0
	if err := c.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKeyFromObject(d)
	get := func() *flinkv1beta1.FlinkDeployment {
		var got flinkv1beta1.FlinkDeployment
		if err := c.Get(ctx, key, &got); err != nil {
			t.Fatal(err)
		}
		return &got
	}
	waitFor(t, sim, 60*time.Second, "generation 1 running", func() bool { return running(1)(get()) })
	select {
	case <-b.Elected():
		t.Fatal("the second operator leads while the first renews its lease")
	default:
	}

	// The upgrade's savepoint hangs until the first operator is gone.
	if !sim.Do(ns, failoverJob, func(fc *fakeflink.Cluster) { fc.HangSavepoints(true) }) {
		t.Fatal("no cluster to hang the savepoints of")
	}
	upgraded := get()
	p := int32(3)
	upgraded.Spec.Job.Parallelism = &p
	if err := c.Update(ctx, upgraded); err != nil {
		t.Fatal(err)
	}
	waitFor(t, sim, 60*time.Second, "the upgrade savepoint triggered", func() bool {
		select {
		case <-crash.stopped:
			return true
		default:
			return false
		}
	})
	stopA()
	wall := clock.RealClock{} // leader election runs on wall-clock time
	stopped := wall.Now()
	elected(t, b, testLease+5*time.Second, "the second operator")
	if took := wall.Since(stopped); took > testLease+2*testRetry+time.Second {
		t.Errorf("the second operator took over after %s, want within the lease duration %s", took, testLease)
	}
	// The new leader reconciles every 500 ms while the savepoint runs, and asks for no other.
	wall.Sleep(3 * time.Second)
	if sent, _ := flink.counts(); sent != 1 {
		t.Errorf("%d stop-with-savepoint requests while Flink took the first, want that one only", sent)
	}
	sim.Do(ns, failoverJob, func(fc *fakeflink.Cluster) { fc.HangSavepoints(false) })
	waitFor(t, sim, 60*time.Second, "generation 2 running", func() bool { return running(2)(get()) })

	if _, n := flink.counts(); n != 1 {
		t.Errorf("Flink was asked for %d stop-with-savepoint operations, want one (the same trigger id after the failover)", n)
	}
	savepoints := sim.Store.List("file:///data/sp")
	if len(savepoints) != 1 {
		t.Errorf("%d savepoints, want the upgrade's one: %+v", len(savepoints), savepoints)
	}
	// The JobManager Deployments of generations 1 and 2 (native mode: no TaskManager
	// Deployment), each created once across the failover.
	if n := creates.Load(); n != 2 {
		t.Errorf("%d Deployments created, want 2 (the JobManager's, two generations)", n)
	}
	starts := sim.Cluster(ns, failoverJob).Starts()
	if len(starts) != 1 || len(savepoints) == 0 || starts[0].RestorePath != savepoints[0].Path {
		t.Errorf("job starts on the upgraded cluster %+v, want one from the savepoint", starts)
	}
}

// elected waits until mgr leads.
func elected(t *testing.T, mgr ctrl.Manager, limit time.Duration, who string) {
	t.Helper()
	select {
	case <-mgr.Elected():
	case <-clock.RealClock{}.After(limit):
		t.Fatalf("%s did not become leader within %s", who, limit)
	}
}
