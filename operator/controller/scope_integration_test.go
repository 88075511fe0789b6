//go:build integration

package controller_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/controller"
)

// TestScopeChangesWhileRunning: the operator reconciles only the resources in its watched
// namespaces whose labels match its selector, and a reload of its options that widens the
// scope brings the resources it now admits to the reconcilers at once (ScopeWatch), without a
// restart and without waiting for their next change. Without the ScopeWatch (Setup.Scope nil)
// the second half fails: nothing changes those resources, so nothing enqueues them.
func TestScopeChangesWhileRunning(t *testing.T) {
	ctx, env := startAPIServer(t)
	c := env.Client
	const other = "other"
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: other}}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "operator.yaml")
	write := func(content string) {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	first := config.KeyWatchedNamespaces + ": " + ns + "\n" + config.KeyLabelSelector + ": team=a\n"
	write(first)
	live, err := config.NewLive([]byte(first))
	if err != nil {
		t.Fatal(err)
	}
	skip := true
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme: env.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: ctrlconfig.Controller{SkipNameValidation: &skip}, Cache: controller.CacheOptions(nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	scope := controller.NewScopeWatch(live, mgr.GetClient())
	if err := mgr.Add(scope); err != nil {
		t.Fatal(err)
	}
	setup := controller.Setup{Live: live, Scope: scope}
	if err := setup.NewFlinkDeploymentReconciler(mgr).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	go func() { _ = mgr.Start(ctx) }()

	create := func(name, namespace, team string) client.ObjectKey {
		d := deployment(name, flinkv1beta1.UpgradeModeStateless)
		d.UID, d.Generation, d.Namespace, d.Labels = "", 0, namespace, map[string]string{"team": team}
		if err := c.Create(ctx, d); err != nil {
			t.Fatal(err)
		}
		return client.ObjectKeyFromObject(d)
	}
	in, labelled, elsewhere := create("in", ns, "a"), create("labelled-b", ns, "b"), create("elsewhere", other, "a")
	finalized := func(key client.ObjectKey) bool {
		var d flinkv1beta1.FlinkDeployment
		return c.Get(ctx, key, &d) == nil && slices.Contains(d.Finalizers, controller.Finalizer)
	}
	waitUntil := func(what string, cond func() bool) {
		t.Helper()
		if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) { return cond(), nil }); err != nil {
			t.Fatalf("not %s: %v", what, err)
		}
	}
	waitUntil("the resource in scope reconciled", func() bool { return finalized(in) })
	// The others would have been reconciled with it: for 2 s more, neither may be.
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 2*time.Second, true, func(context.Context) (bool, error) {
		return finalized(labelled) || finalized(elsewhere), nil
	}); err == nil {
		t.Fatal("a resource out of scope was reconciled")
	}

	write(config.KeyWatchedNamespaces + ": " + ns + "," + other + "\n" + config.KeyLabelSelector + ": team in (a,b)\n")
	if changed, _, err := live.Reload(path); !changed || err != nil {
		t.Fatalf("reload: %v, %v", changed, err)
	}
	waitUntil("the resources the wider scope admits reconciled", func() bool { return finalized(labelled) && finalized(elsewhere) })
}
