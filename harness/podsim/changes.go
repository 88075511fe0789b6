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

	"github.com/flinkop/flinkop/fakeflink"
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

// take empties the set and returns what it held, in order.
func (c *changes) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := slices.Sorted(maps.Keys(c.apps))
	clear(c.apps)
	return out
}

// WatchChanges makes Sync follow changes, as a kubelet watches instead of polling: Sync then
// visits only the resources whose Deployments, flink-config ConfigMap or pods the informers
// of inf saw change since, with the ones a pod fault or slow start waits on, and visits every
// Deployment once every full (a safety net, as a kubelet's periodic resync). inf must be the
// Reader's informers, started. Without it every Sync visits every Deployment: at thousands of
// deployments, every 200 ms, the simulated kubelet cost as much CPU as the operator.
func (s *Sim) WatchChanges(ctx context.Context, inf cache.Informers, full time.Duration) error {
	c := &changes{apps: map[string]bool{}, full: s.clock.Now()}
	mark := func(obj any) {
		if app := appOf(obj); app != "" {
			c.mark(app)
		}
	}
	handler := toolscache.ResourceEventHandlerFuncs{
		AddFunc: mark, UpdateFunc: func(_, obj any) { mark(obj) }, DeleteFunc: mark,
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

// appOf is the namespace/app of an object the simulator reads or writes: a Deployment or pod
// by its app label, a flink-config ConfigMap by its name; "" for any other.
func appOf(obj any) string {
	if t, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	o, ok := obj.(metav1.Object)
	if !ok {
		return ""
	}
	app := o.GetLabels()[act.LabelApp]
	if _, isCM := obj.(*corev1.ConfigMap); isCM {
		app, _ = strings.CutPrefix(o.GetName(), act.ConfigMapName(""))
		if app == o.GetName() {
			return ""
		}
	}
	if app == "" {
		return ""
	}
	return o.GetNamespace() + "/" + app
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
		c.full = now
		c.take() // the full sync visits them all
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
	jmErrs := s.each(ctx, jms, s.syncJobManager)
	tmErrs := s.each(ctx, tms, s.syncTaskManager)
	for i, err := range jmErrs {
		errs = append(errs, s.again(c, jms[i], err))
	}
	for i, err := range tmErrs {
		errs = append(errs, s.again(c, tms[i], err))
	}
	return true, s.collectGone(ctx, errors.Join(errs...))
}

// again marks dep's resource changed when its sync failed, so that the next Sync tries it again.
func (s *Sim) again(c *changes, dep *appsv1.Deployment, err error) error {
	if err != nil {
		c.mark(dep.Namespace + "/" + dep.Labels[act.LabelApp])
	}
	return err
}

// managed reads the operator's Deployment namespace/name: nil when it is gone or going.
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
	if n := s.clusters[key]; n != nil {
		n.server.Do(func(c *fakeflink.Cluster) { c.CrashJobManager() })
		delete(s.clusters, key)
	}
	delete(s.launches, key)
	delete(s.hashes, key)
	if s.pods[key+"-0"] {
		s.goneP = append(s.goneP, key+"-0")
	}
}

// collectGone deletes the pods of the Deployments gone meanwhile, as the garbage collector
// would, and returns err with what failed.
func (s *Sim) collectGone(ctx context.Context, err error) error {
	s.mu.Lock()
	keys := s.goneP
	s.goneP = nil
	s.mu.Unlock()
	for _, key := range keys {
		ns, name, _ := strings.Cut(key, "/")
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		if derr := client.IgnoreNotFound(s.client.Delete(ctx, pod)); derr != nil {
			return errors.Join(err, fmt.Errorf("delete pod %s: %w", key, derr))
		}
		s.mu.Lock()
		delete(s.pods, key)
		s.mu.Unlock()
	}
	return err
}

// waiting are the resources a timer waits on: a pod fault that ends, a slow start, a delayed
// start to come.
func (s *Sim) waiting() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	add := func(key string) {
		ns, name, _ := strings.Cut(key, "/")
		out = append(out, ns+"/"+strings.TrimSuffix(name, "-taskmanager"))
	}
	for key := range s.faults {
		add(key)
	}
	for key := range s.delays {
		add(key)
	}
	for key, n := range s.clusters {
		if n.faulted || !n.startAt.IsZero() {
			add(key)
		}
	}
	return out
}
