package fleet

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// floor does the operator's writes to converge with a plain client, with 16 writers and then
// (with serial) one: as many Service creates as the operator made, every other one with a
// cluster IP (the operator renders a cluster-IP Service and a headless one per deployment),
// so the floor queues on kube-apiserver's cluster-IP allocator as the operator did; as many
// Deployment creates (small pod templates); and every other write (status updates, Events,
// ConfigMaps) as a small ConfigMap create. byKind splits writes by request, as the API proxy
// counts them; without it every write is a ConfigMap create.
func floor(ctx context.Context, c client.Client, writes int64, byKind map[string]int64, serial bool) (parallelTime, serialTime time.Duration, err error) {
	plan := floorPlan(writes, byKind)
	run := func(prefix string, workers int) (time.Duration, error) {
		start := time.Now()
		err := parallel(ctx, workers, len(plan), func(ctx context.Context, i int) error {
			return c.Create(ctx, floorObject(plan[i], fmt.Sprintf("%s-%d", prefix, i), i))
		})
		return time.Since(start), err
	}
	if parallelTime, err = run("floor-p", 16); err != nil || !serial {
		return parallelTime, 0, err
	}
	serialTime, err = run("floor-s", 1)
	return parallelTime, serialTime, err
}

// The kinds of floor writes.
const (
	floorService    = "POST services"
	floorDeployment = "POST deployments"
	floorConfigMap  = "configmap"
)

// floorPlan spreads writes over the kinds of floor writes, interleaved as the operator's are:
// byKind's Service and Deployment creates, ConfigMap creates for the rest.
func floorPlan(writes int64, byKind map[string]int64) []string {
	counts := map[string]int64{floorService: byKind[floorService], floorDeployment: byKind[floorDeployment]}
	counts[floorConfigMap] = max(0, writes-counts[floorService]-counts[floorDeployment])
	plan := make([]string, 0, writes)
	for int64(len(plan)) < writes {
		for _, k := range []string{floorService, floorDeployment, floorConfigMap} {
			if counts[k] > 0 {
				counts[k]--
				plan = append(plan, k)
			}
		}
	}
	return plan
}

// floorObject is the object a floor write of kind creates, named name; i alternates Services
// between a cluster IP and none.
func floorObject(kind, name string, i int) client.Object {
	labels := map[string]string{"floor": name}
	meta := metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels}
	switch kind {
	case floorService:
		svc := &corev1.Service{ObjectMeta: meta, Spec: corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Name: "rest", Port: 8081}}}}
		if i%2 == 1 {
			svc.Spec.ClusterIP = corev1.ClusterIPNone
		}
		return svc
	case floorDeployment:
		return &appsv1.Deployment{ObjectMeta: meta, Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "flink-main-container", Image: "flink:1.20"}}},
			},
		}}
	}
	return &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"config.yaml": "taskmanager.numberOfTaskSlots: 2\n"}}
}

// freshFloor measures the floor on an API server of its own, started with the fleet's flags.
func (f *fleet) freshFloor(ctx context.Context) error {
	env, err := f.cfg.startAPIServer()
	if err != nil {
		return fmt.Errorf("fresh API server: %w", err)
	}
	defer func() { _ = env.Stop() }()
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil {
		return err
	}
	f.logf("the floor on a fresh API server: %d writes by a plain client", f.rep.ConvergeWrites)
	f.rep.FloorParallel, f.rep.FloorSerial, err = floor(ctx, env.Client, f.rep.ConvergeWrites, f.rep.ConvergeWritesByKind, f.serialFloor())
	return err
}

// serialFloor reports whether the floor's single-writer run is measured.
func (f *fleet) serialFloor() bool { return !f.cfg.ConvergeOnly && !f.cfg.NoSerialFloor }
