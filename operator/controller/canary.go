package controller

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// IsCanary reports whether obj is a canary resource (flinkv1beta1.CanaryLabel, Apache's): a
// FlinkDeployment or FlinkSessionJob that runs nothing. The operator changes its
// spec.restartNonce every canary timeout and expects to reconcile the change within the next
// one; when it does not, its reconcile loop is stuck and /healthz fails.
func IsCanary(obj client.Object) bool { return flinkv1beta1.IsCanary(obj.GetLabels()) }

// reconcileCanary is a reconcile's handling of canaries: it records one (releasing the
// finalizer of one being deleted, labelled after it got it), forgets a resource that is no
// longer one, and reports whether obj is a canary, whose reconcile ends here.
func reconcileCanary(ctx context.Context, c client.Client, canaries *Canaries, kind flinkv1beta1.JobKind, obj client.Object, finalizer string) (bool, error) {
	if !IsCanary(obj) {
		canaries.Deleted(kind, client.ObjectKeyFromObject(obj))
		return false, nil
	}
	canaries.Reconciled(kind, obj) // runs nothing: it shows the loop moves
	if obj.GetDeletionTimestamp() != nil && controllerutil.ContainsFinalizer(obj, finalizer) {
		return true, releaseFinalizer(ctx, c, obj, finalizer)
	}
	return true, nil
}

// Canaries follows the canary resources: the reconcilers report each reconcile of one, and
// its runnable (the leader's only) changes them and checks they were reconciled in time.
// Check is the /healthz check. Safe for concurrent use; a nil *Canaries follows nothing.
type Canaries struct {
	// Client changes the canaries; Reader reads them past the cache.
	Client client.Client
	Reader client.Reader
	// Clock paces the checks.
	Clock clock.WithTicker
	// Timeout is kubernetes.operator.health.canary.resource.timeout, read at each check.
	Timeout func() time.Duration

	mu    sync.Mutex
	known map[canaryKey]*canary
}

type canaryKey struct {
	kind flinkv1beta1.JobKind
	types.NamespacedName
}

type canary struct {
	reconciled int64 // the newest generation a reconcile saw
	changed    int64 // the generation the operator's last change gave it (0: none yet)
	healthy    bool
}

// Reconciled records that a reconcile saw canary obj of kind.
func (c *Canaries) Reconciled(kind flinkv1beta1.JobKind, obj client.Object) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.known == nil {
		c.known = map[canaryKey]*canary{}
	}
	key := canaryKey{kind, client.ObjectKeyFromObject(obj)}
	k := c.known[key]
	if k == nil {
		k = &canary{healthy: true}
		c.known[key] = k
	}
	k.reconciled = max(k.reconciled, obj.GetGeneration())
}

// Deleted forgets a deleted canary.
func (c *Canaries) Deleted(kind flinkv1beta1.JobKind, key types.NamespacedName) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.known, canaryKey{kind, key})
}

// Check fails while a canary was not reconciled within the timeout after its last change.
func (c *Canaries) Check(*http.Request) error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var stuck []string
	for key, k := range c.known {
		if !k.healthy {
			stuck = append(stuck, string(key.kind)+" "+key.String())
		}
	}
	if len(stuck) > 0 {
		slices.Sort(stuck)
		return fmt.Errorf("canary resources not reconciled within %s of their last change: %s", c.Timeout(), strings.Join(stuck, ", "))
	}
	return nil
}

// NeedLeaderElection implements manager.LeaderElectionRunnable: only the leader reconciles,
// so only the leader's canaries are expected to move.
func (c *Canaries) NeedLeaderElection() bool { return true }

// Start checks and changes the canaries every timeout until ctx ends.
func (c *Canaries) Start(ctx context.Context) error {
	for {
		t := c.Clock.NewTimer(c.Timeout())
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C():
		}
		c.Tick(ctx)
	}
}

// Tick judges each canary by whether a reconcile saw its last change, then changes it again.
func (c *Canaries) Tick(ctx context.Context) {
	c.mu.Lock()
	keys := make([]canaryKey, 0, len(c.known))
	for key, k := range c.known {
		if k.changed > 0 {
			k.healthy = k.reconciled >= k.changed
			if !k.healthy {
				log.FromContext(ctx).Error(errors.New("canary not reconciled"), "the reconcile loop did not see a canary's last change in time",
					"kind", key.kind, "canary", key.String(), "generation", k.changed, "reconciled", k.reconciled)
			}
		}
		keys = append(keys, key)
	}
	c.mu.Unlock()
	for _, key := range keys {
		gen, err := c.change(ctx, key)
		if errors.Is(err, errNotCanary) || apierrors.IsNotFound(err) {
			c.Deleted(key.kind, key.NamespacedName) // a tenant took the label off, or deleted it
			continue
		}
		if err != nil {
			log.FromContext(ctx).Info("could not change a canary", "canary", key.String(), "error", err.Error())
			continue
		}
		c.mu.Lock()
		if k := c.known[key]; k != nil {
			k.changed = gen
		}
		c.mu.Unlock()
	}
}

// change increments a canary's spec.restartNonce and returns the generation that gives it.
func (c *Canaries) change(ctx context.Context, key canaryKey) (int64, error) {
	var obj client.Object
	var nonce *int64
	switch key.kind {
	case flinkv1beta1.JobKindSessionJob:
		j := &flinkv1beta1.FlinkSessionJob{}
		if err := c.Reader.Get(ctx, key.NamespacedName, j); err != nil {
			return 0, err
		}
		obj, nonce = j, j.Spec.RestartNonce
		j.Spec.RestartNonce = next(nonce)
	default:
		d := &flinkv1beta1.FlinkDeployment{}
		if err := c.Reader.Get(ctx, key.NamespacedName, d); err != nil {
			return 0, err
		}
		obj, nonce = d, d.Spec.RestartNonce
		d.Spec.RestartNonce = next(nonce)
	}
	if !IsCanary(obj) {
		return 0, errNotCanary
	}
	gen := obj.GetGeneration()
	if err := c.Client.Update(ctx, obj); err != nil {
		return 0, fmt.Errorf("change canary %s: %w", key, err)
	}
	return gen + 1, nil // a change of spec gives the next generation
}

// errNotCanary: the resource lost its canary label.
var errNotCanary = errors.New("no longer a canary")

func next(n *int64) *int64 {
	v := int64(1)
	if n != nil {
		v = *n + 1
	}
	return &v
}
