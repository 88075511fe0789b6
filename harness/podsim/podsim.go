// Package podsim is the harness's fake kubelet: it turns the JobManager and TaskManager
// Deployments the operator renders into fakeflink JobManagers and TaskManagers, writes the
// Deployments' status and the pods' state back, and routes the operator's Flink REST calls to
// the right in-process fakeflink server (no sockets). Images whose name contains "crashloop"
// or "missing" make pods crash-loop or fail to pull, for error-path tests; BreakPods and the
// start delays inject the same failures, and slow starts, as chaos.
package podsim

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/fakeflink/image"
	"github.com/flinkop/flinkop/fakeflink/kubeha"
	"github.com/flinkop/flinkop/fakeflink/rest"
	"github.com/flinkop/flinkop/operator/act"
)

// Sim is the fake kubelet of one Kubernetes backend.
type Sim struct {
	client client.Client
	clock  clock.PassiveClock
	rand   *rand.Rand
	// Store is the durable store of every cluster (checkpoints, savepoints).
	Store *fakeflink.Store
	// Namespace limits the simulator to one namespace ("" = all), also what WatchChanges follows.
	Namespace string
	// StartDelay is how long every new JobManager pod takes to become ready.
	StartDelay time.Duration
	// Reader serves the simulator's reads of Deployments, Pods and configuration ConfigMaps
	// (nil: the client). A fleet gives it an informer cache, as a kubelet watches instead of
	// polling; writes, and Flink's HA ConfigMaps, always go to the client. The simulator only
	// reads what Reader returns (it copies an object before it writes it), so a cache may hand
	// out its own objects without copying them.
	Reader client.Reader
	// Parallel is how many Deployments Sync brings up at once (0 or 1: one after the other,
	// as the deterministic worlds need). A fleet of thousands sets it: one by one, the
	// simulated kubelet and not the operator set the pace. Each cluster then gets its own
	// random source, drawn from the simulator's.
	Parallel int

	mu       sync.Mutex       // guards the maps: REST calls and a Parallel Sync come from other goroutines
	clusters map[string]*node // by namespace/name of the JobManager Deployment
	serial   int              // JobManager incarnations started so far
	faults   map[string]podFault
	refused  map[string]time.Time     // namespace/cluster-id → TaskManager pod creates refused until
	delays   map[string]time.Duration // extra delay of the next start, by JobManager Deployment
	confs    map[string]parsedConf    // parsed Flink configurations, by ConfigMap
	launches map[string]launch        // each Deployment's last container start
	hashes   map[string]cachedHash    // each JobManager Deployment's last template hash
	// Kube is the typed clientset native JobManagers' resource managers create their
	// TaskManager pods with (nil: each its own Clientset over the client).
	Kube kubernetes.Interface
	// Jars are the jar files the simulated Flink image holds (DefaultJars).
	Jars map[string]image.Jar
	// failures are the container failures of pods that do not start, by Deployment.
	failures map[string]*image.Failure
	pods     map[string]int32 // pods written (podKey 0 to n-1), by Deployment (Sync's only)
	// changes, when WatchChanges set it, are the resources Sync visits between full syncs,
	// one every fullEvery; goneP are the Deployments gone meanwhile, whose pods to delete.
	changes   *changes
	fullEvery time.Duration
	goneP     []string
}

// podFault keeps a JobManager's pod failing with reason until the given time.
type podFault struct {
	reason string
	until  time.Time
}

// node is one running fakeflink JobManager with its TaskManagers.
type node struct {
	cluster *fakeflink.Cluster
	server  *rest.Server
	hash    string
	tms     []string
	broken  string    // pod failure reason, when the pods cannot start
	faulted bool      // broken by an injected pod fault (it heals)
	startAt time.Time // a slow start: the JobManager process starts then
	serial  int       // which JobManager incarnation this is
	// namespace and uid are the JobManager Deployment's: another Deployment of the same
	// name (deleted and created again) has new pods, so a new JobManager.
	namespace string
	uid       types.UID
	native    *native // a native JobManager's resource manager (nil in standalone mode)
	// unreachable is why its TaskManagers cannot register with it ("" when they can).
	unreachable string
}

// New returns a simulator over c.
func New(c client.Client, clk clock.PassiveClock, r *rand.Rand) *Sim {
	return &Sim{
		client: c, clock: clk, rand: r, Store: fakeflink.NewStore(), clusters: map[string]*node{},
		faults: map[string]podFault{}, refused: map[string]time.Time{}, delays: map[string]time.Duration{}, confs: map[string]parsedConf{}, pods: map[string]int32{},
		launches: map[string]launch{}, hashes: map[string]cachedHash{}, Jars: DefaultJars(), failures: map[string]*image.Failure{},
	}
}

// Cluster returns the fakeflink cluster behind a JobManager Deployment, or nil.
func (s *Sim) Cluster(namespace, name string) *fakeflink.Cluster {
	if n := s.node(namespace + "/" + name); n != nil {
		return n.cluster
	}
	return nil
}

// Incarnation numbers the JobManager behind a Deployment: it changes whenever the simulator
// starts a new one (a new pod); 0 when none runs.
func (s *Sim) Incarnation(namespace, name string) int {
	if n := s.node(namespace + "/" + name); n != nil {
		return n.serial
	}
	return 0
}

// BreakPods makes the pods of a JobManager Deployment fail with reason (CrashLoopBackOff,
// ImagePullBackOff, …) for d: the JobManager process dies at once and a new one starts when
// the window ends.
func (s *Sim) BreakPods(namespace, name, reason string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[namespace+"/"+name] = podFault{reason: reason, until: s.clock.Now().Add(d)}
}

// DelayNextStart makes the next JobManager pod of a Deployment take d longer to start.
func (s *Sim) DelayNextStart(namespace, name string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delays[namespace+"/"+name] = d
}

// LiveJobManagers counts the running JobManager processes per HA cluster id (namespace/id).
func (s *Sim) LiveJobManagers() map[string]int {
	out := map[string]int{}
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, n := range s.clusters {
		ns, _, _ := strings.Cut(key, "/")
		n.server.Do(func(c *fakeflink.Cluster) {
			if c.Up() {
				out[ns+"/"+c.Spec().ID]++
			}
		})
	}
	return out
}

// EachCluster runs f on every running cluster, in key order (namespace/name of the
// JobManager Deployment), each with its REST server locked.
func (s *Sim) EachCluster(f func(key string, c *fakeflink.Cluster)) {
	s.mu.Lock()
	keys := slices.Sorted(maps.Keys(s.clusters))
	s.mu.Unlock()
	for _, k := range keys {
		if n := s.node(k); n != nil {
			n.server.Do(func(c *fakeflink.Cluster) { f(k, c) })
		}
	}
}

// Do runs f on the cluster behind a JobManager Deployment, with its REST server locked.
func (s *Sim) Do(namespace, name string, f func(*fakeflink.Cluster)) bool {
	n := s.node(namespace + "/" + name)
	if n == nil {
		return false
	}
	n.server.Do(f)
	return true
}

func (s *Sim) node(key string) *node {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clusters[key]
}

// nodes returns the running nodes in key order.
func (s *Sim) nodes() []*node {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*node, 0, len(s.clusters))
	for _, k := range slices.Sorted(maps.Keys(s.clusters)) {
		out = append(out, s.clusters[k])
	}
	return out
}

// Tick advances every cluster to the clock's time.
func (s *Sim) Tick() {
	for _, n := range s.nodes() {
		n.server.Do(func(c *fakeflink.Cluster) { c.Tick() })
	}
}

// Sync makes the fake world match the Deployments: it starts, restarts and stops JobManagers,
// registers TaskManagers, and writes Deployment status and pods. After WatchChanges it visits
// only what changed, between full syncs.
func (s *Sim) Sync(ctx context.Context) error {
	if ok, err := s.syncChanged(ctx); ok {
		return err
	}
	var deps appsv1.DeploymentList
	if err := s.reader().List(ctx, &deps, client.InNamespace(s.Namespace), client.MatchingLabels{act.LabelManagedBy: act.ManagedBy}); err != nil {
		return err
	}
	var jms, tms []*appsv1.Deployment
	seen, live := map[string]bool{}, map[string]bool{}
	for i := range deps.Items {
		dep := &deps.Items[i]
		if dep.DeletionTimestamp != nil {
			continue
		}
		live[dep.Namespace+"/"+dep.Name] = true
		switch dep.Labels[act.LabelComponent] {
		case act.ComponentJobManager:
			seen[dep.Namespace+"/"+dep.Name] = true
			jms = append(jms, dep)
		case act.ComponentTaskManager:
			tms = append(tms, dep)
		}
	}
	// Orphaned TaskManager pods go first: a JobManager Deployment created again must not
	// take over its predecessor's.
	errs := []error{s.collectNativeOrphans(ctx, deps.Items)}
	// One Deployment's trouble (its ConfigMap not written yet) does not hold the others.
	errs = append(errs, s.retryFailed(jms, s.each(ctx, jms, s.syncJobManager))...)
	errs = append(errs, s.retryFailed(tms, s.each(ctx, tms, s.syncTaskManager))...)
	s.stopGone(seen)
	s.mu.Lock()
	maps.DeleteFunc(s.launches, func(k string, _ launch) bool { return !live[k] })
	maps.DeleteFunc(s.hashes, func(k string, _ cachedHash) bool { return !live[k] })
	s.mu.Unlock()
	errs = append(errs, s.collectPods(ctx, deps.Items))
	return errors.Join(errs...)
}

// each runs f on every Deployment, Parallel at a time, and returns the errors.
func (s *Sim) each(ctx context.Context, deps []*appsv1.Deployment, f func(context.Context, *appsv1.Deployment) error) []error {
	errs := make([]error, len(deps))
	if s.Parallel <= 1 {
		for i, dep := range deps {
			errs[i] = f(ctx, dep)
		}
		return errs
	}
	var g errgroup.Group
	g.SetLimit(s.Parallel)
	for i, dep := range deps {
		g.Go(func() error {
			errs[i] = f(ctx, dep) // every Deployment's error, not only the first
			return nil
		})
	}
	_ = g.Wait()
	return errs
}

// stopGone stops the JobManagers whose Deployments are gone (not in seen).
func (s *Sim) stopGone(seen map[string]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range slices.Sorted(maps.Keys(s.clusters)) {
		if !seen[k] {
			s.stopLocked(k)
		}
	}
}

// stopLocked stops the JobManager behind Deployment key, if one runs, and forgets it; the
// caller holds s.mu.
func (s *Sim) stopLocked(key string) {
	if n := s.clusters[key]; n != nil {
		n.server.Do(func(c *fakeflink.Cluster) { c.CrashJobManager() })
		delete(s.clusters, key)
	}
}

// collectPods deletes the pods it wrote whose Deployment is gone or going, as the garbage
// collector would (an envtest API server runs none).
func (s *Sim) collectPods(ctx context.Context, deps []appsv1.Deployment) error {
	live := map[string]bool{}
	for _, d := range deps {
		if d.DeletionTimestamp == nil {
			live[d.Namespace+"/"+d.Name] = true
		}
	}
	s.mu.Lock()
	keys := slices.Sorted(maps.Keys(s.pods))
	s.mu.Unlock()
	for _, key := range keys {
		if live[key] {
			continue
		}
		if err := s.deletePods(ctx, key, 0); err != nil {
			return err
		}
	}
	return nil
}

// deletePods deletes the pods it wrote of Deployment depKey from the from-th on, the last
// first (gone already is fine), and forgets them; on an error it keeps the ones left.
func (s *Sim) deletePods(ctx context.Context, depKey string, from int32) error {
	s.mu.Lock()
	n := s.pods[depKey]
	s.mu.Unlock()
	for i := n - 1; i >= from; i-- {
		ns, name, _ := strings.Cut(podKey(depKey, i), "/")
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		// As a kubelet confirms a deletion once the containers stopped: at once (a pod on a
		// node is otherwise only marked, for its kubelet to finish).
		if err := client.IgnoreNotFound(s.client.Delete(ctx, pod, client.GracePeriodSeconds(0))); err != nil {
			s.mu.Lock()
			s.pods[depKey] = i + 1
			s.mu.Unlock()
			return fmt.Errorf("delete pod %s/%s: %w", ns, name, err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if from == 0 {
		delete(s.pods, depKey)
	} else {
		s.pods[depKey] = from
	}
	return nil
}

func (s *Sim) syncJobManager(ctx context.Context, dep *appsv1.Deployment) error {
	key := dep.Namespace + "/" + dep.Name
	conf, err := s.flinkConf(ctx, dep)
	if err != nil {
		return err
	}
	l, err := s.start(ctx, dep)
	if err != nil {
		return err
	}
	if l.proc != nil {
		conf = l.proc.Config // the configuration as Flink read it
	}
	hash := s.templateHash(key, dep, conf, l.digest)
	n := s.node(key)
	if n == nil || n.hash != hash || n.uid != dep.UID {
		if n != nil {
			n.server.Do(func(c *fakeflink.Cluster) { c.CrashJobManager() })
		}
		if n, err = s.startJobManager(dep, conf, hash, l); err != nil {
			return err
		}
		s.mu.Lock()
		s.clusters[key] = n
		s.mu.Unlock()
	}
	if err := s.heal(key, n); err != nil {
		return err
	}
	n.unreachable = sharedAddress(dep, l)
	if n.native != nil {
		if err := s.syncNative(ctx, n); err != nil {
			return err
		}
	}
	return s.writeStatus(ctx, dep, n.broken)
}

// heal applies the pod faults and slow starts to a JobManager: it breaks the pod when a fault
// begins and starts the JobManager process when the fault ends or the slow start is over.
func (s *Sim) heal(key string, n *node) error {
	s.mu.Lock()
	f, faulty := s.faults[key]
	if faulty && !s.clock.Now().Before(f.until) {
		delete(s.faults, key)
		faulty = false
	}
	s.mu.Unlock()
	now := s.clock.Now()
	var err error
	switch {
	case faulty && !n.faulted && n.broken == "":
		n.broken, n.faulted = f.reason, true
		n.server.Do(func(c *fakeflink.Cluster) { c.CrashJobManager() })
	case !faulty && n.faulted, !n.startAt.IsZero() && !now.Before(n.startAt):
		n.broken, n.faulted, n.startAt = "", false, time.Time{}
		n.server.Do(func(c *fakeflink.Cluster) { err = c.StartJobManager() })
		if n.native != nil && err == nil {
			err = n.native.restart(s.clock) // a new JobManager process: a new attempt
		}
	}
	return err
}

func (s *Sim) startJobManager(dep *appsv1.Deployment, conf map[string]string, hash string, l launch) (*node, error) {
	main := mainContainer(dep)
	s.mu.Lock()
	s.serial++
	n := &node{hash: hash, broken: brokenReason(main.Image), serial: s.serial, namespace: dep.Namespace, uid: dep.UID}
	r := s.rand
	if s.Parallel > 1 {
		r = rand.New(rand.NewSource(s.rand.Int63()))
	}
	s.mu.Unlock()
	key := dep.Namespace + "/" + dep.Name
	spec := fakeflink.ClusterSpec{ID: conf["kubernetes.cluster-id"], Config: conf}
	if l.proc != nil && l.proc.Program != nil {
		prog, err := fakeflink.ProgramFromConfig(conf, "local://"+l.proc.Program.Jar, l.proc.Program.Class, l.proc.Program.Args)
		if err != nil {
			return nil, err
		}
		spec.Application = &prog
	}
	if l.proc != nil && l.proc.Native {
		nat, err := s.newNative(l)
		if err != nil {
			// The JobManager's resource manager does not start: the process exits, as Flink's
			// does, and the pod crash-loops with why.
			l.failure = &image.Failure{
				ExitCode: 1, Class: "org.apache.flink.util.FlinkException", Message: err.Error(),
				Log: []string{"ERROR org.apache.flink.runtime.entrypoint.ClusterEntrypoint [] - Could not start cluster entrypoint.", "org.apache.flink.util.FlinkException: " + err.Error()},
			}
			n.broken = "CrashLoopBackOff"
		}
		n.native = nat
	}
	s.setFailure(key, l.failure)
	if n.broken == "" && l.failure != nil {
		n.broken = "CrashLoopBackOff"
	}
	ha := &kubeha.ConfigMapHA{Client: s.client, Namespace: dep.Namespace}
	opts := fakeflink.Options{Clock: s.clock, Rand: r, Store: s.Store, HA: ha}
	c, err := fakeflink.NewCluster(spec, opts)
	if err != nil {
		// Flink refuses the configuration at start: the process exits, the pod crash-loops
		// with why, and no cluster runs (one is kept, never started, for the node's shape).
		l.failure = configFailure(err)
		s.setFailure(key, l.failure)
		n.broken = "CrashLoopBackOff"
		spec = fakeflink.ClusterSpec{ID: spec.ID, Config: map[string]string{"taskmanager.numberOfTaskSlots": "1"}}
		if c, err = fakeflink.NewCluster(spec, opts); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	delay := s.StartDelay + s.delays[key]
	delete(s.delays, key)
	s.mu.Unlock()
	if n.broken == "" && delay > 0 {
		n.broken, n.startAt = "ContainerCreating", s.clock.Now().Add(delay)
	}
	if n.broken == "" {
		if err := c.StartJobManager(); err != nil {
			return nil, err
		}
	}
	n.cluster, n.server = c, rest.NewServer(c)
	return n, nil
}

func (s *Sim) syncTaskManager(ctx context.Context, dep *appsv1.Deployment) error {
	n := s.node(dep.Namespace + "/" + dep.Labels[act.LabelApp])
	broken := brokenReason(mainContainer(dep).Image)
	l, err := s.start(ctx, dep)
	if err != nil {
		return err
	}
	s.setFailure(dep.Namespace+"/"+dep.Name, l.failure)
	if broken == "" && l.failure != nil {
		broken = "CrashLoopBackOff"
	}
	if n != nil && broken == "" {
		slots, _ := strconv.Atoi(n.cluster.Spec().Config["taskmanager.numberOfTaskSlots"])
		want := int(ptrOr(dep.Spec.Replicas, 1))
		if n.unreachable != "" {
			want = 0 // they run, but none is let in
		}
		var ids []string
		for i := range want {
			ids = append(ids, fmt.Sprintf("%s-%d", dep.Name, i+1))
		}
		n.server.Do(func(c *fakeflink.Cluster) {
			for _, id := range n.tms {
				if !slices.Contains(ids, id) {
					c.RemoveTaskManager(id)
				}
			}
			for _, id := range ids {
				c.RegisterTaskManager(id, max(slots, 1))
			}
		})
		n.tms = ids
	}
	return s.writeStatus(ctx, dep, broken)
}

// flinkConf reads the Flink configuration the operator rendered for a Deployment.
func (s *Sim) flinkConf(ctx context.Context, dep *appsv1.Deployment) (map[string]string, error) {
	var cm corev1.ConfigMap
	key := client.ObjectKey{Namespace: dep.Namespace, Name: act.ConfigMapName(dep.Labels[act.LabelApp])}
	if err := s.reader().Get(ctx, key, &cm); err != nil {
		return nil, fmt.Errorf("flink config of %s: %w", dep.Name, err)
	}
	version := string(cm.UID) + "/" + cm.ResourceVersion // it changes with the data
	s.mu.Lock()
	cached, ok := s.confs[key.String()]
	s.mu.Unlock()
	if ok && cached.version == version {
		return maps.Clone(cached.conf), nil
	}
	conf := map[string]string{}
	for _, file := range []string{"config.yaml", "flink-conf.yaml"} {
		if data, ok := cm.Data[file]; ok {
			if err := yaml.Unmarshal([]byte(data), &conf); err != nil {
				return nil, fmt.Errorf("%s of %s: %w", file, dep.Name, err)
			}
		}
	}
	s.mu.Lock()
	s.confs[key.String()] = parsedConf{version: version, conf: maps.Clone(conf)}
	s.mu.Unlock()
	return conf, nil
}

// parsedConf is a Flink configuration parsed from one content of its ConfigMap.
type parsedConf struct {
	version string // the files it was parsed from
	conf    map[string]string
}

func mainContainer(dep *appsv1.Deployment) corev1.Container {
	for _, c := range dep.Spec.Template.Spec.Containers {
		if c.Name == act.MainContainer {
			return c
		}
	}
	return corev1.Container{}
}

// brokenReason is the simulated pod failure an image name asks for.
func brokenReason(image string) string {
	switch {
	case strings.Contains(image, "crashloop"):
		return "CrashLoopBackOff"
	case strings.Contains(image, "missing"):
		return "ImagePullBackOff"
	}
	return ""
}

func ptrOr(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

func (s *Sim) reader() client.Reader {
	if s.Reader != nil {
		return s.Reader
	}
	return s.client
}
