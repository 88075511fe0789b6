package controller_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/controller"
	"github.com/flinkop/flinkop/operator/decide"
	"github.com/flinkop/flinkop/operator/metrics"
)

// TestStatusWriteConflictIsRetriedQuietly: a status write that loses a race is retried soon
// and counted, not returned as an error (which logs a stack trace and backs off); any other
// failed write still is an error.
func TestStatusWriteConflictIsRetriedQuietly(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Group: "flink.apache.org", Resource: "flinkdeployments"}, "job", errors.New("the object has been modified"))
	for name, tc := range map[string]struct {
		writeErr error
		wantErr  bool
		// wantMetrics are the conflict and reconcile error counters after the reconcile.
		wantMetrics string
	}{
		"conflict: quiet retry": {writeErr: conflict, wantMetrics: `
# HELP flinkop_status_conflicts_total Status writes and finalizer adds that lost a race with another write of the resource and were retried.
# TYPE flinkop_status_conflicts_total counter
flinkop_status_conflicts_total 1
`},
		"other error: returned": {writeErr: errors.New("connection reset (injected)"), wantErr: true, wantMetrics: `
# HELP flinkop_reconcile_errors_total Reconciles that failed, by the step that failed.
# TYPE flinkop_reconcile_errors_total counter
flinkop_reconcile_errors_total{step="status"} 1
# HELP flinkop_status_conflicts_total Status writes and finalizer adds that lost a race with another write of the resource and were retried.
# TYPE flinkop_status_conflicts_total counter
flinkop_status_conflicts_total 0
`},
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			e.create(deployment("job", flinkv1beta1.UpgradeModeStateless))
			failing := interceptor.NewClient(e.client.(client.WithWatch), interceptor.Funcs{
				SubResourceUpdate: func(context.Context, client.Client, string, client.Object, ...client.SubResourceUpdateOption) error {
					return tc.writeErr
				},
			})
			reg := reconcileFailing(t, e, failing, tc.wantErr)
			if err := testutil.GatherAndCompare(reg, strings.NewReader(tc.wantMetrics), metrics.ConflictsName, metrics.ReconcileErrorsName); err != nil {
				t.Error(err)
			}
		})
	}
}

// busyOnce refuses the first action for want of a slot, then carries actions out.
type busyOnce struct {
	controller.Executor
	refused bool
}

func (b *busyOnce) Execute(ctx context.Context, d *flinkv1beta1.FlinkDeployment, a decide.Action) error {
	if !b.refused {
		b.refused = true
		return fmt.Errorf("create Service: %w", &act.RetryLaterError{What: "every Service create slot is taken", After: 700 * time.Millisecond})
	}
	return b.Executor.Execute(ctx, d, a)
}

// An action refused for want of a slot is tried again when the slot's back-off says, with no
// error, no Warning and no status change; the next try goes ahead.
func TestActionWaitingForASlotIsRetriedQuietly(t *testing.T) {
	e := newEnv(t)
	e.create(deployment("job", flinkv1beta1.UpgradeModeStateless))
	e.r.Executor = &busyOnce{Executor: e.r.Executor}
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	e.r.Metrics = m
	before := e.get("job").Status
	res, err := e.r.Reconcile(e.ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: "job"}})
	if err != nil || res.RequeueAfter != 700*time.Millisecond {
		t.Fatalf("Reconcile = %+v, %v; want a requeue after 700ms and no error", res, err)
	}
	e.drainEvents()
	if len(e.events) != 0 {
		t.Errorf("events %q, want none", e.events)
	}
	if diff := cmp.Diff(before, e.get("job").Status); diff != "" {
		t.Errorf("status changed (-before +after):\n%s", diff)
	}
	exp := "# HELP flinkop_service_create_waits_total Actions put off because every cluster-IP Service create slot was taken (retried after a per-Service back-off).\n" +
		"# TYPE flinkop_service_create_waits_total counter\nflinkop_service_create_waits_total 1\n"
	if err := testutil.GatherAndCompare(reg, strings.NewReader(exp), metrics.SlotWaitsName); err != nil {
		t.Error(err)
	}
	e.until("job", 30, "running", running(1))
}

// TestFinalizerConflictIsRetriedQuietly: adding the finalizer to a copy the cache has not
// brought up to date (a watch that lags under load) loses a race; that is retried soon and
// counted, not returned as an error; any other failed write still is one.
func TestFinalizerConflictIsRetriedQuietly(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Group: "flink.apache.org", Resource: "flinkdeployments"}, "job", errors.New("the object has been modified"))
	for name, tc := range map[string]struct {
		writeErr      error
		wantErr       bool
		wantConflicts float64
	}{
		"conflict: quiet retry": {writeErr: conflict, wantConflicts: 1},
		"other error: returned": {writeErr: errors.New("connection reset (injected)"), wantErr: true},
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			d := deployment("job", flinkv1beta1.UpgradeModeStateless)
			d.Finalizers = nil
			e.create(d)
			failing := interceptor.NewClient(e.client.(client.WithWatch), interceptor.Funcs{
				Update: func(context.Context, client.WithWatch, client.Object, ...client.UpdateOption) error {
					return tc.writeErr
				},
			})
			reg := reconcileFailing(t, e, failing, tc.wantErr)
			want := fmt.Sprintf(`
# HELP flinkop_status_conflicts_total Status writes and finalizer adds that lost a race with another write of the resource and were retried.
# TYPE flinkop_status_conflicts_total counter
flinkop_status_conflicts_total %v
`, tc.wantConflicts)
			if err := testutil.GatherAndCompare(reg, strings.NewReader(want), metrics.ConflictsName); err != nil {
				t.Error(err)
			}
		})
	}
}

// reconcileFailing reconciles the env's deployment "job" once through failing, with metrics
// in a registry of their own, and checks the outcome: an error when wantErr, else a quiet
// retry after ConflictRetry. It returns the registry.
func reconcileFailing(t *testing.T, e *env, failing client.Client, wantErr bool) *prometheus.Registry {
	t.Helper()
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	r := controller.Setup{Options: config.Defaults(), Transport: e.sim, Clock: e.clock, Metrics: m}.Reconciler(failing, e.rec)
	res, err := r.Reconcile(e.ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: "job"}})
	if (err != nil) != wantErr {
		t.Fatalf("error %v, want an error: %v", err, wantErr)
	}
	if !wantErr && res.RequeueAfter != controller.ConflictRetry {
		t.Errorf("requeue after %s, want %s", res.RequeueAfter, controller.ConflictRetry)
	}
	return reg
}
