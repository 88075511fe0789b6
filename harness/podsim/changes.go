package podsim

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
)

// changes is the set of resources (namespace/name of a FlinkDeployment: its app label) whose
// Deployments, flink-config ConfigMap or pods changed since the simulator last synced them.
type changes struct {
	mu   sync.Mutex
	apps map[string]bool
	full time.Time // when the last full sync began
}

func (c *changes) mark(app string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.apps[app] = true
}

// take empties the set and returns what it held.
func (c *changes) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := slices.Collect(maps.Keys(c.apps))
	clear(c.apps)
	return out
}

// WatchChanges makes Sync follow changes, as a kubelet watches instead of polling: Sync then
// visits only the resources whose Deployments, flink-config ConfigMap or pods the informers
// of inf saw change since, with the ones a pod fault or slow start waits on, and visits every
// Deployment once every full (a safety net, as a kubelet's periodic resync). inf must be the
// Reader's informers, started. Without it every Sync visits every Deployment: at thousands of
// deployments, every 200 ms, the simulated kubelet cost as much CPU as the operator. Only
// objects of the simulator's Namespace count. Sync must not run concurrently with itself.
func (s *Sim) WatchChanges(ctx context.Context, inf cache.Informers, full time.Duration) error {
	c := &changes{apps: map[string]bool{}, full: s.clock.Now()}
	mark := func(obj any) {
		if ns, app := appOf(obj); app != "" && (s.Namespace == "" || ns == s.Namespace) {
			c.mark(ns + "/" + app)
		}
	}
	handler := toolscache.ResourceEventHandlerFuncs{
		AddFunc: mark, UpdateFunc: func(old, obj any) { mark(old); mark(obj) }, DeleteFunc: mark,
	}
	for _, obj := range []client.Object{&appsv1.Deployment{}, &corev1.ConfigMap{}, &corev1.Pod{}} {
		i, err := inf.GetInformer(ctx, obj)
		if err != nil {
			return fmt.Errorf("watch %T: %w", obj, err)
		}
		if _, err := i.AddEventHandler(handler); err != nil {
			return fmt.Errorf("watch %T: %w", obj, err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.changes, s.fullEvery = c, full
	return nil
}

// appOf is the namespace and app of an object the simulator reads or writes: a Deployment or
// pod by its app label, a flink-config ConfigMap by its name (Flink's HA ConfigMaps carry the
// app label too, but a JobManager reads them only when it starts); app "" for any other.
func appOf(obj any) (namespace, app string) {
	if t, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	o, ok := obj.(metav1.Object)
	if !ok {
		return "", ""
	}
	app = o.GetLabels()[act.LabelApp]
	if _, isCM := obj.(*corev1.ConfigMap); isCM {
		var found bool
		if app, found = strings.CutPrefix(o.GetName(), act.ConfigMapName("")); !found {
			return "", ""
		}
	}
	return o.GetNamespace(), app
}

// syncChanged syncs the resources in the change set and those a timer waits on; it reports
// false when a full sync is due instead (or changes are not watched).
func (s *Sim) syncChanged(ctx context.Context) (bool, error) {
	s.mu.Lock()
	c, every := s.changes, s.fullEvery
	s.mu.Unlock()
	if c == nil {
		return false, nil
	}
	if now := s.clock.Now(); !now.Before(c.full.Add(every)) {
		// The full sync visits them all; the set is kept (a failed List drops nothing).
		c.full = now
		return false, nil
	}
	apps := append(c.take(), s.waiting()...)
	slices.Sort(apps)
	apps = slices.Compact(apps)
	var jms, tms []*appsv1.Deployment
	var errs []error
	for _, app := range apps {
		ns, name, _ := strings.Cut(app, "/")
		jm, err := s.managed(ctx, ns, act.JobManagerName(name))
		tm, terr := s.managed(ctx, ns, act.TaskManagerName(name))
		if err = errors.Join(err, terr); err != nil {
			c.mark(app)
			errs = append(errs, err)
			continue
		}
		if jm == nil {
			s.gone(ns + "/" + act.JobManagerName(name))
		} else {
			jms = append(jms, jm)
		}
		if tm == nil {
			s.gone(ns + "/" + act.TaskManagerName(name))
		} else {
			tms = append(tms, tm)
		}
	}
	errs = append(errs, s.retryFailed(jms, s.each(ctx, jms, s.syncJobManager))...)
	errs = append(errs, s.retryFailed(tms, s.each(ctx, tms, s.syncTaskManager))...)
	return true, s.collectGone(ctx, errors.Join(errs...))
}

// retryFailed marks the resources of the Deployments whose sync failed (errs[i] is deps[i]'s)
// changed, so that the next Sync tries them again (nothing without WatchChanges: every Sync
// visits every Deployment then), and returns the errors.
func (s *Sim) retryFailed(deps []*appsv1.Deployment, errs []error) []error {
	s.mu.Lock()
	c := s.changes
	s.mu.Unlock()
	for i, err := range errs {
		if err != nil && c != nil {
			c.mark(deps[i].Namespace + "/" + deps[i].Labels[act.LabelApp])
		}
	}
	return errs
}

// managed reads the operator's Deployment namespace/name: nil when it is gone or going, or
// is not the operator's (no managed-by label).
func (s *Sim) managed(ctx context.Context, ns, name string) (*appsv1.Deployment, error) {
	var dep appsv1.Deployment
	err := s.reader().Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &dep)
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("deployment %s: %w", name, err)
	case dep.DeletionTimestamp != nil || dep.Labels[act.LabelManagedBy] != act.ManagedBy:
		return nil, nil
	}
	return &dep, nil
}

// gone forgets a Deployment that is gone: its JobManager stops, its pod is deleted by the
// next collectGone.
func (s *Sim) gone(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopLocked(key)
	delete(s.launches, key)
	delete(s.hashes, key)
	if s.pods[key] > 0 {
		s.goneP = append(s.goneP, key)
	}
}

// collectGone deletes the pods of the Deployments gone meanwhile, as the garbage collector
// would, and returns err joined with the first delete that failed; that pod and the ones
// after it are deleted by a later Sync.
func (s *Sim) collectGone(ctx context.Context, err error) error {
	s.mu.Lock()
	keys := s.goneP
	s.goneP = nil
	s.mu.Unlock()
	for i, key := range keys {
		if derr := s.deletePods(ctx, key, 0); derr != nil {
			s.mu.Lock()
			s.goneP = append(s.goneP, keys[i:]...)
			s.mu.Unlock()
			return errors.Join(err, derr)
		}
	}
	return err
}

// waiting are the resources a timer waits on: a pod fault that ends, a slow start, a delayed
// start to come, a native resource manager with work left. Their keys are JobManager Deployments', which are the resources' own
// (act.JobManagerName).
func (s *Sim) waiting() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Collect(maps.Keys(s.faults))
	out = slices.AppendSeq(out, maps.Keys(s.delays))
	for key, n := range s.clusters {
		if n.faulted || !n.startAt.IsZero() || (n.broken == "" && n.native.busy()) {
			out = append(out, key)
		}
	}
	return out
}
