package podsim

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/fakeflink/image"
	"github.com/flinkop/flinkop/fakeflink/kuberm"
)

// native is a native JobManager's resource manager (fakeflink's KubernetesResourceManagerDriver
// over the world's API) and what the simulated kubelet wrote for the TaskManager pods it made.
type native struct {
	driver   *kuberm.Driver
	pod      image.Pod           // the JobManager's: its TaskManagers mount the same configuration
	written  map[string]string   // pod name → the outcome its status was written for
	err      string              // the resource manager's last failure (the API refused a pod), "" when none
	want     int                 // the TaskManagers the demand asked for at the last sync
	own      *kubefake.Clientset // the resource manager's own clientset (nil: the simulator's Kube)
	kube     kubernetes.Interface
	conf     map[string]string // the JobManager's configuration, as it read it
	template *corev1.Pod       // the TaskManager pod template file (nil: none)
}

// newNative starts the resource manager of a native JobManager process.
func (s *Sim) newNative(l launch) (*native, error) {
	conf := l.proc.Config
	var tmpl *corev1.Pod
	if path := conf[kuberm.KeyTaskManagerTemplate]; path != "" {
		if path != kuberm.PodTemplateDir+"/"+kuberm.TaskManagerTemplateFile {
			return nil, fmt.Errorf("pod template file %s does not exist", path)
		}
		var err error
		if tmpl, err = kuberm.ParseTemplate(l.pod.ConfFiles[kuberm.TaskManagerTemplateFile]); err != nil {
			return nil, err
		}
	}
	nat := &native{pod: l.pod, written: map[string]string{}, conf: conf, template: tmpl, kube: s.Kube}
	if nat.kube == nil {
		nat.own = Clientset(s.client)
		nat.own.PrependReactor("create", "pods", s.refuseReactor)
		nat.kube = nat.own
	}
	return nat, nat.restart(s.clock)
}

// restart starts the resource manager of a new JobManager attempt (a new process of the same
// pod): it takes over the pods of the attempts before it.
func (nat *native) restart(clk clock.PassiveClock) error {
	d, err := kuberm.New(nat.kube, nat.conf, nat.template, clk)
	if err != nil {
		return err
	}
	nat.driver = d
	return nil
}

// syncNative runs a native JobManager's resource manager against its slot demand, then the
// kubelet of the TaskManager pods it holds: each starts (registering with the JobManager),
// fails, or is found gone.
func (s *Sim) syncNative(ctx context.Context, n *node) error {
	nat := n.native
	if n.broken != "" {
		return nil
	}
	slots, want := 0, 0
	n.server.Do(func(c *fakeflink.Cluster) {
		slots, _ = strconv.Atoi(c.Spec().Config["taskmanager.numberOfTaskSlots"])
		want = kuberm.WorkersFor(c.RequiredSlots(), max(slots, 1))
	})
	nat.err, nat.want = "", want
	if err := nat.driver.Sync(ctx, want); err != nil {
		// Flink logs it and asks again; the job waits for its slots meanwhile.
		nat.err = err.Error()
	}
	if nat.own != nil {
		nat.own.ClearActions() // the fake clientset keeps every action otherwise
	}
	held := nat.driver.Pods()
	for _, name := range held {
		if err := s.runTaskManagerPod(ctx, n, name, max(slots, 1)); err != nil {
			return err
		}
	}
	n.server.Do(func(c *fakeflink.Cluster) {
		for id := range c.TaskManagers() {
			if !slices.Contains(held, id) || n.unreachable != "" {
				c.RemoveTaskManager(id)
			}
		}
	})
	maps.DeleteFunc(nat.written, func(name, _ string) bool { return !slices.Contains(held, name) })
	return nil
}

// runTaskManagerPod is the kubelet of one TaskManager pod: it starts the container under the
// image contract and writes the pod's status once per outcome; a running TaskManager
// registers with its JobManager, a failed one is reported to the resource manager.
func (s *Sim) runTaskManagerPod(ctx context.Context, n *node, name string, slots int) error {
	nat := n.native
	var pod corev1.Pod
	key := client.ObjectKey{Namespace: n.namespace, Name: name}
	err := s.reader().Get(ctx, key, &pod)
	if apierrors.IsNotFound(err) && s.Reader != nil {
		// A cache may not have seen a pod the resource manager just made: ask the API.
		err = s.client.Get(ctx, key, &pod)
	}
	if apierrors.IsNotFound(err) || (err == nil && pod.DeletionTimestamp != nil) {
		nat.driver.Observe(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}, true)
		n.server.Do(func(c *fakeflink.Cluster) { c.RemoveTaskManager(name) })
		return nil
	}
	if err != nil {
		return fmt.Errorf("TaskManager pod %s: %w", name, err)
	}
	outcome, written := nat.written[name]
	var failure *image.Failure
	if !written { // a pod's containers start once: it is never changed, only replaced
		outcome, failure = startTaskManager(nat.pod, &pod)
	}
	if outcome == "" && n.unreachable == "" {
		n.server.Do(func(c *fakeflink.Cluster) { c.RegisterTaskManager(name, slots) })
	}
	if written {
		return nil
	}
	pod = *pod.DeepCopy()
	pod.Status = taskManagerPodStatus(outcome, failure, PodIP(pod.Namespace+"/"+pod.Name), metav1.NewTime(s.clock.Now()))
	if err := s.client.Status().Update(ctx, &pod); apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // gone, or a stale read: the next sync sees it again
	} else if err != nil {
		return fmt.Errorf("TaskManager pod status %s: %w", name, err)
	}
	nat.written[name] = outcome
	if pod.Status.Phase == corev1.PodFailed {
		nat.driver.Observe(&pod, false)
	}
	return nil
}

// startTaskManager starts a TaskManager pod's main container from the JobManager's files
// under the image contract: its outcome is "" (running), the reason its image does not pull,
// or "Error" with the failure it exits with.
func startTaskManager(jm image.Pod, pod *corev1.Pod) (outcome string, failure *image.Failure) {
	main := mainContainerOf(&pod.Spec)
	if broken := brokenReason(main.Image); broken != "" {
		return broken, nil
	}
	jm.Args = expandArgs(&main, PodIP(pod.Namespace+"/"+pod.Name))
	proc, failure := image.Start(jm)
	if failure != nil {
		return "Error", failure
	}
	if id := proc.Config["taskmanager.resource-id"]; id != pod.Name {
		return "Error", &image.Failure{ExitCode: 1, Message: "taskmanager.resource-id " + id + " is not the pod's name"}
	}
	return "", nil
}

// taskManagerPodStatus is what a kubelet reports for a TaskManager pod (restartPolicy Never):
// running and ready (outcome ""), Pending while its image does not pull, Failed once its
// container exited.
func taskManagerPodStatus(outcome string, failure *image.Failure, ip string, now metav1.Time) corev1.PodStatus {
	cs := corev1.ContainerStatus{Name: kuberm.MainContainer, Ready: outcome == ""}
	phase, broken := corev1.PodRunning, outcome
	switch {
	case outcome == "":
		cs.State.Running = &corev1.ContainerStateRunning{StartedAt: now}
		cs.Started = ptrTo(true)
	case failure != nil:
		phase, broken = corev1.PodFailed, "Error"
		cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: int32(failure.ExitCode), Reason: "Error", Message: failureMessage(failure)}
	default:
		phase = corev1.PodPending
		cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: outcome}
	}
	conds := podConditions(broken, now)
	if phase == corev1.PodFailed {
		conds = podConditions("ContainersNotReady", now)
		conds[0].Status = corev1.ConditionFalse
	}
	return corev1.PodStatus{
		Phase: phase, Conditions: conds, ContainerStatuses: []corev1.ContainerStatus{cs},
		HostIP: "10.0.0.1", PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}},
	}
}

// collectNativeOrphans deletes the TaskManager pods of native clusters whose owner, a
// JobManager Deployment, is gone or was replaced (another UID), as the garbage collector
// would (an envtest API server runs none), and confirms the deletion of the ones being
// deleted, as their kubelet would.
func (s *Sim) collectNativeOrphans(ctx context.Context, deps []appsv1.Deployment) error {
	live := map[string]bool{}
	for _, d := range deps {
		if d.DeletionTimestamp == nil {
			live[d.Namespace+"/"+d.Name+"/"+string(d.UID)] = true
		}
	}
	var pods corev1.PodList
	sel := client.MatchingLabels{kuberm.LabelType: kuberm.TypeNative, kuberm.LabelComponent: kuberm.ComponentTaskManager}
	if err := s.reader().List(ctx, &pods, client.InNamespace(s.Namespace), sel); err != nil {
		return fmt.Errorf("list TaskManager pods: %w", err)
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		owner := metav1.GetControllerOf(p)
		orphan := owner != nil && owner.Kind == "Deployment" && !live[p.Namespace+"/"+owner.Name+"/"+string(owner.UID)]
		if !orphan && p.DeletionTimestamp == nil {
			continue // a pod being deleted is the kubelet's to finish: its container stopped at once
		}
		if err := s.client.Delete(ctx, p, client.GracePeriodSeconds(0)); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("collect TaskManager pod %s: %w", p.Name, err)
		}
	}
	return nil
}

func mainContainerOf(spec *corev1.PodSpec) corev1.Container {
	for _, c := range spec.Containers {
		if c.Name == kuberm.MainContainer {
			return c
		}
	}
	return corev1.Container{}
}

func ptrTo[T any](v T) *T { return &v }

// NextWake is the earliest time a native JobManager's resource manager has something to do on
// its own (releasing idle TaskManagers): a kubelet's Sync is due then. Zero when none has. It
// reads the resource managers' state unlocked: call it between Syncs, never during one.
func (s *Sim) NextWake() time.Time {
	var at time.Time
	for _, n := range s.nodes() {
		if n.native == nil || n.broken != "" { // a JobManager that is down releases nothing
			continue
		}
		if w := n.native.driver.NextWake(); !w.IsZero() && (at.IsZero() || w.Before(at)) {
			at = w
		}
	}
	return at
}

// busy reports whether a native JobManager's resource manager has work left that no API
// change will announce: TaskManagers to release, pods it could not make, fewer pods than the
// demand.
func (nat *native) busy() bool {
	return nat != nil && (!nat.driver.NextWake().IsZero() || nat.err != "" || len(nat.driver.Pods()) != nat.want)
}
