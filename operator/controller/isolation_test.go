package controller_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/controller"
	"github.com/flinkop/flinkop/operator/metrics"
)

// switchable carries REST calls to inner until it is down; then each fails as a refused
// connection does.
type switchable struct {
	inner http.RoundTripper
	down  atomic.Bool
}

func (s *switchable) RoundTrip(req *http.Request) (*http.Response, error) {
	if s.down.Load() {
		return nil, errors.New("connection refused (injected)")
	}
	return s.inner.RoundTrip(req)
}

// TestUnreachableJobManagerIsReportedAndBackedOff: a JobManager whose REST API stops
// answering is reported once (status.error and one Warning event) after
// decide.UnreachableAfter probes, its polls back off, and its answer again clears the error.
func TestUnreachableJobManagerIsReportedAndBackedOff(t *testing.T) {
	e := newEnv(t)
	rest := &switchable{inner: e.sim}
	opts := config.Defaults()
	opts.ProgressCheckInterval, opts.ReconcileInterval, opts.FlinkClientTimeout = 2*time.Second, 30*time.Second, time.Second
	e.r = controller.Setup{Options: opts, Transport: rest, Clock: e.clock}.Reconciler(e.client, e.rec)
	e.createRunning(deployment("job", flinkv1beta1.UpgradeModeSavepoint))
	e.drainEvents()
	e.events = nil

	rest.down.Store(true)
	var requeues []time.Duration
	var errs []bool
	for range 7 {
		res, err := e.r.Reconcile(e.ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: "job"}})
		if err != nil {
			t.Fatal(err)
		}
		requeues = append(requeues, res.RequeueAfter)
		errs = append(errs, strings.Contains(flinkv1beta1.ErrorMessage(e.get("job").Status.Error), "does not answer"))
		e.clock.Step(res.RequeueAfter)
	}
	e.drainEvents()
	s := time.Second
	if diff := cmp.Diff([]time.Duration{30 * s, 30 * s, 30 * s, 30 * s, 30 * s, 32 * s, 64 * s}, requeues); diff != "" {
		t.Errorf("requeues while unreachable (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]bool{false, false, true, true, true, true, true}, errs); diff != "" {
		t.Errorf("status.error reports it (-want +got):\n%s", diff)
	}
	if n := e.countEvents("JobManagerUnreachable"); n != 1 {
		t.Errorf("%d JobManagerUnreachable events, want 1: %v", n, e.events)
	}

	rest.down.Store(false)
	res, err := e.r.Reconcile(e.ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: "job"}})
	if err != nil {
		t.Fatal(err)
	}
	e.drainEvents()
	if d := e.get("job"); flinkv1beta1.ErrorMessage(d.Status.Error) != "" || res.RequeueAfter != 30*s || e.countEvents("JobManagerReachable") != 1 {
		t.Errorf("after it answers: error %q, requeue %s, events %v", flinkv1beta1.ErrorMessage(d.Status.Error), res.RequeueAfter, e.events)
	}
}

// TestHotLoopIsThrottled: a resource reconciled faster than the per-resource rate waits (and
// reads nothing meanwhile) while another resource is reconciled at once.
func TestHotLoopIsThrottled(t *testing.T) {
	e := newEnv(t)
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	e.r = controller.Setup{Options: config.Defaults(), Transport: e.sim, Clock: e.clock, Metrics: m}.Reconciler(e.client, e.rec)
	e.create(deployment("hot", flinkv1beta1.UpgradeModeStateless))
	e.create(deployment("calm", flinkv1beta1.UpgradeModeStateless))
	reconcile := func(name string) ctrl.Result {
		res, err := e.r.Reconcile(e.ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for range controller.LoopBurst {
		reconcile("hot")
	}
	throttled := func(want int) {
		t.Helper()
		exp := "# HELP flinkop_reconciles_throttled_total Reconciles put off because their resource was reconciled faster than the per-resource rate allows.\n" +
			"# TYPE flinkop_reconciles_throttled_total counter\n" + fmt.Sprintf("flinkop_reconciles_throttled_total %d\n", want)
		if err := testutil.GatherAndCompare(reg, strings.NewReader(exp), metrics.ThrottledName); err != nil {
			t.Error(err)
		}
	}
	throttled(0)
	before := e.get("hot").ResourceVersion
	if res := reconcile("hot"); res.RequeueAfter != time.Second/controller.LoopRate {
		t.Errorf("the reconcile past the burst waits %s, want %s", res.RequeueAfter, time.Second/controller.LoopRate)
	}
	throttled(1)
	if after := e.get("hot").ResourceVersion; after != before {
		t.Errorf("a put-off reconcile wrote the resource (%s → %s)", before, after)
	}
	if res := reconcile("calm"); res.RequeueAfter != time.Second {
		t.Errorf("the other resource: requeue %s, want its first step's %s", res.RequeueAfter, time.Second)
	}
	throttled(1)
	e.clock.Step(time.Second / controller.LoopRate)
	if res := reconcile("hot"); res.RequeueAfter == time.Second/controller.LoopRate {
		t.Error("still put off once its token is due")
	}
	throttled(1)
}
