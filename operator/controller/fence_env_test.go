package controller_test

import (
	"context"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/flinkop/flinkop/harness"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/controller"
	"github.com/flinkop/flinkop/operator/metrics"
)

// TestReconcileWaitsForTheCacheToHoldItsOwnWrite: a reconcile that reads its resource as it was
// before the operator's own last write of it (the cache lags behind the write) writes nothing
// and looks again, instead of writing the finalizer again on a version the API server no
// longer has (a 409, logged as an error, once per retry, until the cache caught up); once the
// cache holds the write, reconciling goes on.
func TestReconcileWaitsForTheCacheToHoldItsOwnWrite(t *testing.T) {
	e := newEnv(t)
	e.create(deployment("job", flinkv1beta1.UpgradeModeStateless))
	var stale *flinkv1beta1.FlinkDeployment // served while set: the cache's copy from before the first write
	writes := 0
	lagging := interceptor.NewClient(harness.CacheView(e.client.(client.WithWatch)), interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if d, ok := obj.(*flinkv1beta1.FlinkDeployment); ok && stale != nil {
				stale.DeepCopyInto(d)
				return nil
			}
			return c.Get(ctx, key, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			writes++
			return c.Update(ctx, obj, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			writes++
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
	})
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	r := controller.Setup{Options: config.Defaults(), Transport: e.sim, Clock: e.clock, Metrics: m, APIReader: e.client}.Reconciler(lagging, e.rec)
	req := ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: "job"}}
	var before flinkv1beta1.FlinkDeployment
	if err := e.client.Get(e.ctx, req.NamespacedName, &before); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reconcile(e.ctx, req); err != nil {
		t.Fatalf("first reconcile: %v", err)
	}
	if writes == 0 {
		t.Fatal("the first reconcile wrote nothing: the test needs a write to lag behind")
	}
	stale, writes = &before, 0
	for range 3 {
		res, err := r.Reconcile(e.ctx, req)
		if err != nil || res.RequeueAfter != controller.StaleReadRetry {
			t.Errorf("a reconcile on the cache's copy from before the write: %v, requeue after %s; want no error and %s", err, res.RequeueAfter, controller.StaleReadRetry)
		}
	}
	if writes != 0 {
		t.Errorf("%d writes on a copy from before the operator's own write, want none", writes)
	}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP flinkop_stale_reads_total Reconciles put off because the cache still held the resource as it was before the operator's own last write of it.
# TYPE flinkop_stale_reads_total counter
flinkop_stale_reads_total 3
`), metrics.StaleReadsName); err != nil {
		t.Error(err)
	}
	stale = nil // the cache caught up
	if _, err := r.Reconcile(e.ctx, req); err != nil {
		t.Errorf("a reconcile once the cache holds the write: %v", err)
	}
}
