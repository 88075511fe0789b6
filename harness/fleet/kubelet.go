package fleet

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/controller"
)

// countedClient is a client of the fleet's API server whose requests counter counts.
func (f *fleet) countedClient(counter *apiCounter) (client.Client, error) {
	cfg := rest.CopyConfig(f.env.Config)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { counter.inner = rt; return counter })
	c, err := client.New(cfg, client.Options{Scheme: f.env.Scheme})
	if err != nil {
		return nil, fmt.Errorf("pod simulator's client: %w", err)
	}
	return c, nil
}

// kubeletCache is the pod simulator's view of the fleet namespace: an informer cache, as a
// kubelet watches (polling every object each tick would load the API server more than the
// operator does). Its objects are copied as they arrive, so their memory is allocated under
// the harness and not counted as the operator's (see operatorHeapMB).
func (f *fleet) kubeletCache(ctx context.Context) (cache.Cache, error) {
	httpClient, err := rest.HTTPClientFor(f.env.Config)
	if err != nil {
		return nil, fmt.Errorf("kubelet cache: %w", err)
	}
	mapper, err := controller.MapperProvider(f.env.Config, httpClient)
	if err != nil {
		return nil, fmt.Errorf("kubelet cache: %w", err)
	}
	c, err := cache.New(f.env.Config, cache.Options{
		Scheme: f.env.Scheme, HTTPClient: httpClient, Mapper: mapper,
		DefaultNamespaces: map[string]cache.Config{namespace: {}},
		DefaultTransform:  detach,
		// Its readers (the pod simulator, the tracker) only read: no copy per read.
		DefaultUnsafeDisableDeepCopy: ptr.To(true),
	})
	if err != nil {
		return nil, fmt.Errorf("kubelet cache: %w", err)
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		return nil, errors.New("kubelet cache did not sync")
	}
	return c, nil
}

// detach copies an object the pod simulator's cache receives, without its managed fields
// (nobody here reads them).
func detach(obj any) (any, error) {
	o, ok := obj.(client.Object)
	if !ok {
		return obj, nil
	}
	o = o.DeepCopyObject().(client.Object) //nolint:forcetypeassert // a copy has its original's type
	o.SetManagedFields(nil)
	return o, nil
}
