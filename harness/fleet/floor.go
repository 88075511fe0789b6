package fleet

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// The requests the floor makes as the operator made them; any other write the operator made
// is made as a ConfigMap create.
const (
	floorFinalizer  = "PUT flinkdeployments"
	floorStatus     = "PUT flinkdeployments/status"
	floorConfigMap  = "POST configmaps"
	floorService    = "POST services"
	floorDeployment = "POST deployments"
	floorEvent      = "POST events"
)

// floorKinds are the floor's requests in the order one deployment's are made.
var floorKinds = []string{floorFinalizer, floorStatus, floorConfigMap, floorService, floorDeployment, floorEvent, floorStatus}

// floorNamespace holds the floor's objects: on the fleet's API server, out of the operator's
// sight.
const floorNamespace = "fleet-floor"

// floor does the operator's writes to converge with a plain client, request for request as
// the API proxy counted them (byKind), with 16 writers and then (with serial) one. It first
// creates n FlinkDeployments, untimed (the users' creates are not the operator's writes);
// then each gets its share of every kind of write, made in order as the operator's one
// worker per resource makes them: finalizer updates; status updates, each writing status
// (a converged deployment's status, with its timestamp changed so that no update is a
// no-op); creates of the objects the operator renders for it (its ConfigMap, its REST
// Service with a cluster IP, its headless Service, its two Deployments; more creates of a
// kind than it renders are copies under new names); Event creates; and every other write as
// a ConfigMap create. The writers work on different deployments. afterParallel, when set, is
// called once the 16 writers are done, before the single writer starts.
func floor(ctx context.Context, c client.Client, n int, writes int64, byKind map[string]int64, status flinkv1beta1.FlinkDeploymentStatus, serial bool, afterParallel func()) (parallelTime, serialTime time.Duration, err error) {
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: floorNamespace}}); client.IgnoreAlreadyExists(err) != nil {
		return 0, 0, err
	}
	scripts := floorScripts(n, writes, byKind)
	run := func(prefix string, workers int) (time.Duration, error) {
		fds := make([]*flinkv1beta1.FlinkDeployment, n)
		if err := parallel(ctx, 16, n, func(ctx context.Context, i int) error {
			fds[i] = deployment(fmt.Sprintf("%s-%05d", prefix, i), false, "")
			fds[i].Namespace = floorNamespace
			return c.Create(ctx, fds[i])
		}); err != nil {
			return 0, fmt.Errorf("floor deployments: %w", err)
		}
		start := time.Now()
		err := parallel(ctx, workers, n, func(ctx context.Context, i int) error {
			return floorWrites(ctx, c, fds[i], scripts[i], status)
		})
		return time.Since(start), err
	}
	parallelTime, err = run("floor-p", 16)
	if afterParallel != nil {
		afterParallel()
	}
	if err != nil || !serial {
		return parallelTime, 0, err
	}
	serialTime, err = run("floor-s", 1)
	return parallelTime, serialTime, err
}

// floorScripts spreads writes over n deployments: each kind of floorKinds byKind counted,
// the rest as ConfigMap creates, dealt out in turn; each deployment's list follows
// floorKinds' order (its status updates split around its creates).
func floorScripts(n int, writes int64, byKind map[string]int64) [][]string {
	counts := map[string]int64{}
	var known int64
	for _, k := range floorKinds {
		if _, seen := counts[k]; !seen {
			counts[k] = byKind[k]
			known += byKind[k]
		}
	}
	counts[floorConfigMap] += max(0, writes-known)
	share := func(kind string, i int) int {
		c := counts[kind]
		s := c / int64(n)
		if int64(i) < c%int64(n) {
			s++
		}
		return int(s)
	}
	scripts := make([][]string, n)
	for i := range scripts {
		statuses := share(floorStatus, i)
		for j, k := range floorKinds {
			times := share(k, i)
			if k == floorStatus { // the first status update before the creates, the rest after
				times = min(statuses, 1)
				if j > 1 {
					times = statuses - min(statuses, 1)
				}
			}
			for range times {
				scripts[i] = append(scripts[i], k)
			}
		}
	}
	return scripts
}

// floorWrites makes one deployment's floor writes in order.
func floorWrites(ctx context.Context, c client.Client, fd *flinkv1beta1.FlinkDeployment, script []string, status flinkv1beta1.FlinkDeploymentStatus) error {
	objs, err := act.Render(act.Cluster{Resource: fd, Spec: fd.Spec, Generation: 1, JobID: "00000000000000000000000000000001"})
	if err != nil {
		return fmt.Errorf("floor objects: %w", err)
	}
	created := map[string]int{}
	for i, kind := range script {
		var err error
		switch kind {
		case floorFinalizer:
			fd.Finalizers = append(fd.Finalizers, fmt.Sprintf("flinkop.example/floor-%d", i))
			err = c.Update(ctx, fd)
		case floorStatus:
			fd.Status = *status.DeepCopy()
			fd.Status.ReconciliationStatus.ReconciliationTimestamp = int64(i + 1)
			err = c.Status().Update(ctx, fd)
		default:
			err = c.Create(ctx, floorObject(kind, objs, fd, created[kind]))
			created[kind]++
		}
		if err != nil {
			return fmt.Errorf("floor %s of %s: %w", kind, fd.Name, err)
		}
	}
	return nil
}

// floorObject is the k-th object of kind the floor creates for fd: the rendered one (the
// REST Service, then the headless one; the JobManager's Deployment, then the TaskManagers'),
// under a new name from the kind's second round on; an Event about fd.
func floorObject(kind string, objs *act.Objects, fd *flinkv1beta1.FlinkDeployment, k int) client.Object {
	var round []client.Object
	switch kind {
	case floorService:
		round = []client.Object{objs.RESTService, objs.InternalService}
	case floorDeployment:
		round = []client.Object{objs.JobManager}
		if objs.TaskManager != nil { // a standalone cluster's
			round = append(round, objs.TaskManager)
		}
	case floorEvent:
		return &corev1.Event{
			ObjectMeta: metav1.ObjectMeta{Namespace: fd.Namespace, Name: fmt.Sprintf("%s.floor-%d", fd.Name, k)},
			InvolvedObject: corev1.ObjectReference{
				APIVersion: flinkv1beta1.GroupVersion.String(), Kind: "FlinkDeployment", Namespace: fd.Namespace, Name: fd.Name, UID: fd.UID,
			},
			Reason: "StatusChanged", Message: "Job status changed from RECONCILING to RUNNING", Type: corev1.EventTypeNormal,
			Source: corev1.EventSource{Component: "flinkop"}, Count: 1, FirstTimestamp: metav1.Now(), LastTimestamp: metav1.Now(),
		}
	default:
		round = []client.Object{objs.ConfigMap}
	}
	obj := round[k%len(round)].DeepCopyObject().(client.Object) //nolint:forcetypeassert // a copy has its original's type
	if r := k / len(round); r > 0 {
		obj.SetName(fmt.Sprintf("%s-%d", obj.GetName(), r))
	}
	return obj
}

// freshFloor measures the floor on an API server of its own, started with the fleet's flags.
func (f *fleet) freshFloor(ctx context.Context) error {
	env, err := f.cfg.startAPIServer()
	if err != nil {
		return fmt.Errorf("fresh API server: %w", err)
	}
	defer func() { _ = env.Stop() }()
	f.logf("the floor on a fresh API server: %d writes by a plain client", f.rep.ConvergeWrites)
	f.rep.FloorParallel, f.rep.FloorSerial, err = f.floor(ctx, env.Client, env.Config)
	return err
}

// floor measures the floor on the API server c reaches.
func (f *fleet) floor(ctx context.Context, c client.Client, cfg *rest.Config) (parallelTime, serialTime time.Duration, err error) {
	before, read := f.allocationsOf(ctx, cfg)
	measure := func() {
		after, readAfter := f.allocationsOf(ctx, cfg)
		f.rep.FloorAllocations = after.Sub(before)
		f.rep.FloorAllocationsRead = read && readAfter
	}
	return floor(ctx, c, f.cfg.N, f.rep.ConvergeWrites, f.rep.ConvergeWritesByKind, f.convergedStatus, f.serialFloor(), measure)
}

// allocations are the ClusterIP allocations the fleet's API server made so far.
func (f *fleet) allocations(ctx context.Context) (Allocations, bool) {
	return f.allocationsOf(ctx, f.env.Config)
}

// allocationsOf are the ClusterIP allocations the API server cfg reaches made so far, and
// whether its metrics could be read (an error is logged: these figures explain the run,
// they do not fail it).
func (f *fleet) allocationsOf(ctx context.Context, cfg *rest.Config) (Allocations, bool) {
	a, err := clusterIPAllocations(ctx, cfg)
	if err != nil {
		f.logf("ClusterIP allocations: %v", err)
		return Allocations{}, false
	}
	return a, true
}

// serialFloor reports whether the floor's single-writer run is measured.
func (f *fleet) serialFloor() bool { return !f.cfg.ConvergeOnly && !f.cfg.NoSerialFloor }
