package main

import (
	"context"
	"errors"
	"net/http"
	"time"

	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/controller"
)

// newCanaries follows the canary resources (flinkv1beta1.CanaryLabel) with the manager's
// clients, at the live canary timeout.
func newCanaries(mgr ctrl.Manager, live *config.Live) *controller.Canaries {
	return &controller.Canaries{
		Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), Clock: clock.RealClock{},
		Timeout: func() time.Duration { return live.Options().CanaryTimeout },
	}
}

// addHealth wires the probes: /healthz fails while a canary resource was not reconciled in
// time (a stuck reconcile loop: the kubelet restarts the pod); /readyz fails until the
// informers have synced.
func addHealth(mgr ctrl.Manager, canaries *controller.Canaries) error {
	if err := mgr.Add(canaries); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("canaries", canaries.Check); err != nil {
		return err
	}
	return mgr.AddReadyzCheck("informers", func(req *http.Request) error {
		ctx, cancel := context.WithTimeout(req.Context(), time.Second)
		defer cancel()
		if !mgr.GetCache().WaitForCacheSync(ctx) {
			return errors.New("the informers have not synced")
		}
		return nil
	})
}
