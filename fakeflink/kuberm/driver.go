package kuberm

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/flinkop/flinkop/fakeflink"
)

// Driver is the resource manager of one JobManager attempt of a native cluster.
type Driver struct {
	kube     kubernetes.Interface
	conf     map[string]string
	template *corev1.Pod
	clock    clock.PassiveClock
	idle     time.Duration
	attempt  int // this JobManager's attempt, once recovered

	owner       *metav1.OwnerReference
	pods        map[string]bool // the pods of the cluster it holds, by name: true once failed
	next        int             // pods asked for in this attempt
	recovered   bool
	excessSince time.Time
}

// New returns the driver of a JobManager with its effective configuration and TaskManager
// pod template (nil: none). It fails on an option Flink would refuse at start. Its attempt
// number follows the highest one of the pods earlier JobManagers left (found by Sync's first
// call), as Flink counts its attempts.
func New(kube kubernetes.Interface, conf map[string]string, template *corev1.Pod, clk clock.PassiveClock) (*Driver, error) {
	idle, err := fakeflink.ParseDuration(orDefault(conf["resourcemanager.taskmanager-timeout"], DefaultTaskManagerIdle))
	if err != nil {
		return nil, optionErr("resourcemanager.taskmanager-timeout", err)
	}
	if conf["kubernetes.cluster-id"] == "" || conf["kubernetes.namespace"] == "" {
		return nil, fmt.Errorf("kubernetes.cluster-id and kubernetes.namespace must be set")
	}
	return &Driver{kube: kube, conf: conf, template: template, clock: clk, idle: idle, pods: map[string]bool{}}, nil
}

// WorkersFor is how many TaskManagers of perWorker slots a slot demand needs.
func WorkersFor(slots, perWorker int) int {
	perWorker = max(perWorker, 1)
	return (max(slots, 0) + perWorker - 1) / perWorker
}

// Pods are the names of the TaskManager pods the driver holds (not failed), in name order.
func (d *Driver) Pods() []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(d.pods)) {
		if !d.pods[name] {
			out = append(out, name)
		}
	}
	return out
}

// Observe is the pod watch: a pod of the cluster changed (a terminated one is released and
// replaced at the next Sync) or is gone (replaced at the next Sync).
func (d *Driver) Observe(pod *corev1.Pod, deleted bool) {
	if _, ok := d.pods[pod.Name]; !ok {
		return
	}
	switch {
	case deleted:
		delete(d.pods, pod.Name)
	case pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded:
		d.pods[pod.Name] = true
	}
}

// Sync makes the cluster's TaskManager pods fit a demand of want TaskManagers: on its first
// call it takes over the pods of earlier attempts (as Flink recovers its workers), then
// deletes the terminated ones, creates what is missing and, once more than want were held
// for resourcemanager.taskmanager-timeout, deletes the newest extra ones. An error is the
// API's refusal; the pods asked for before it are kept, the rest asked again next time.
func (d *Driver) Sync(ctx context.Context, want int) error {
	if !d.recovered {
		if err := d.recover(ctx); err != nil {
			return err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(d.pods)) {
		if d.pods[name] {
			if err := d.delete(ctx, name); err != nil {
				return err
			}
		}
	}
	held := d.Pods()
	switch {
	case len(held) < want:
		d.excessSince = time.Time{}
		for range want - len(held) {
			if err := d.create(ctx); err != nil {
				return err
			}
		}
	case len(held) > want:
		now := d.clock.Now()
		if d.excessSince.IsZero() {
			d.excessSince = now
		}
		if now.Sub(d.excessSince) < d.idle {
			return nil
		}
		slices.SortFunc(held, ByAge)
		for _, name := range held[want:] {
			if err := d.delete(ctx, name); err != nil {
				return err
			}
		}
		d.excessSince = time.Time{}
	default:
		d.excessSince = time.Time{}
	}
	return nil
}

// NextWake is when the driver next has something to do on its own: the release of the
// TaskManagers held past the demand (zero: nothing).
func (d *Driver) NextWake() time.Time {
	if d.excessSince.IsZero() {
		return time.Time{}
	}
	return d.excessSince.Add(d.idle)
}

// recover lists the pods earlier attempts of the JobManager left (KubernetesResourceManagerDriver
// #recoverWorkerNodesFromPreviousAttempts).
func (d *Driver) recover(ctx context.Context) error {
	sel := labels.SelectorFromSet(Selector(d.conf["kubernetes.cluster-id"])).String()
	list, err := d.kube.CoreV1().Pods(d.conf["kubernetes.namespace"]).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return fmt.Errorf("list TaskManager pods of earlier attempts: %w", err)
	}
	for i := range list.Items {
		p := &list.Items[i]
		d.attempt = max(d.attempt, ageKey(p.Name)[0])
		if p.DeletionTimestamp == nil {
			d.pods[p.Name] = p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded
		}
	}
	d.attempt++
	d.recovered = true
	return nil
}

func (d *Driver) create(ctx context.Context) error {
	if d.owner == nil {
		ns, id := d.conf["kubernetes.namespace"], d.conf["kubernetes.cluster-id"]
		dep, err := d.kube.AppsV1().Deployments(ns).Get(ctx, id, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("get JobManager deployment %s/%s: %w", ns, id, err)
		}
		d.owner = &metav1.OwnerReference{
			APIVersion: "apps/v1", Kind: "Deployment", Name: dep.Name, UID: dep.UID,
			Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
		}
	}
	d.next++
	pod, err := TaskManagerPod(d.conf, d.template, PodName(d.conf["kubernetes.cluster-id"], d.attempt, d.next), *d.owner)
	if err != nil {
		return err
	}
	if _, err := d.kube.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("could not start TaskManager in pod %s: %w", pod.Name, err)
		}
	}
	d.pods[pod.Name] = false
	return nil
}

func (d *Driver) delete(ctx context.Context, name string) error {
	err := d.kube.CoreV1().Pods(d.conf["kubernetes.namespace"]).Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("stop TaskManager pod %s: %w", name, err)
	}
	delete(d.pods, name)
	return nil
}

// ByAge orders TaskManager pod names oldest first: by attempt, then by counter.
func ByAge(a, b string) int {
	ka, kb := ageKey(a), ageKey(b)
	if c := slices.Compare(ka, kb); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

// ageKey is the attempt and counter at the end of a pod name (…-<attempt>-<n>; 0 for what is
// not a number).
func ageKey(name string) []int {
	parts := strings.Split(name, "-")
	out := []int{0, 0}
	for i := range 2 {
		if j := len(parts) - 2 + i; j >= 0 {
			out[i], _ = strconv.Atoi(parts[j])
		}
	}
	return out
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
