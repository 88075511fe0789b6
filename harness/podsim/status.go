package podsim

import (
	"context"
	"fmt"
	"maps"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
)

// writeStatus writes the Deployment's status and its pods, one per replica, as a kubelet and
// the deployment controller would.
func (s *Sim) writeStatus(ctx context.Context, dep *appsv1.Deployment, broken string) error {
	want := ptrOr(dep.Spec.Replicas, 1)
	st := appsv1.DeploymentStatus{ObservedGeneration: dep.Generation, Replicas: want, UpdatedReplicas: want}
	if broken == "" {
		st.ReadyReplicas, st.AvailableReplicas = want, want
	} else {
		st.UnavailableReplicas = want
	}
	if !equalStatus(dep.Status, st) {
		dep = dep.DeepCopy() // the reader's own object is only read
		dep.Status = st
		if err := s.client.Status().Update(ctx, dep); err != nil && !apierrors.IsConflict(err) {
			return fmt.Errorf("deployment status %s: %w", dep.Name, err)
		}
	}
	return s.writePods(ctx, dep, want, broken)
}

// podKey is the i-th pod of the Deployment depKey (namespace/name): namespace/name-i.
func podKey(depKey string, i int32) string { return fmt.Sprintf("%s-%d", depKey, i) }

// writePods writes the Deployment's want pods, all failing with broken (or running and ready
// when it is ""), and deletes the ones past want, as a scale-down would.
func (s *Sim) writePods(ctx context.Context, dep *appsv1.Deployment, want int32, broken string) error {
	key := dep.Namespace + "/" + dep.Name
	s.mu.Lock()
	had := s.pods[key]
	s.pods[key] = max(had, want) // recorded before they are made: a failed create is collected too
	s.mu.Unlock()
	for i := range want {
		if err := s.writePod(ctx, dep, podKey(key, i), broken); err != nil {
			return err
		}
	}
	if had > want {
		return s.deletePods(ctx, key, want)
	}
	return nil
}

func (s *Sim) writePod(ctx context.Context, dep *appsv1.Deployment, podKey, broken string) error {
	ns, name, _ := strings.Cut(podKey, "/")
	key := client.ObjectKey{Namespace: ns, Name: name}
	status := corev1.ContainerStatus{Name: act.MainContainer, Ready: broken == ""}
	if broken != "" {
		status.State.Waiting = &corev1.ContainerStateWaiting{Reason: broken, Message: "simulated: " + mainContainer(dep).Image}
		s.failedStatus(dep.Namespace+"/"+dep.Name, &status)
	} else {
		status.State.Running = &corev1.ContainerStateRunning{}
		started := true
		status.Started = &started
	}
	var existing corev1.Pod
	err := s.reader().Get(ctx, key, &existing)
	if apierrors.IsNotFound(err) {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name, Labels: maps.Clone(dep.Spec.Template.Labels)},
			Spec:       *dep.Spec.Template.Spec.DeepCopy(),
		}
		pod.Spec.NodeName = NodeName
		if err := s.client.Create(ctx, pod); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		existing = *pod
	} else if err != nil {
		return err
	}
	phase := podPhase(broken)
	if existing.Status.Phase == phase && len(existing.Status.ContainerStatuses) == 1 && sameWrittenStatus(existing.Status.ContainerStatuses[0], status) {
		return nil
	}
	existing = *existing.DeepCopy() // the reader's own object is only read
	existing.Status.Phase = phase
	existing.Status.HostIP, existing.Status.PodIP = "10.0.0.1", PodIP(podKey)
	existing.Status.PodIPs = []corev1.PodIP{{IP: existing.Status.PodIP}}
	existing.Status.Conditions = podConditions(broken, metav1.NewTime(s.clock.Now()))
	existing.Status.ContainerStatuses = []corev1.ContainerStatus{status}
	if err := s.client.Status().Update(ctx, &existing); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return err
	}
	return nil // a conflict (a stale read) is written again on the next sync
}

// NodeName is the node the simulator's pods run on.
const NodeName = "podsim"

// podPhase is a pod's phase as a kubelet reports it: Running once its container was created
// (a crash-looping container's pod is Running, not ready), Pending while its image is pulled
// or its container created.
func podPhase(broken string) corev1.PodPhase {
	switch broken {
	case "", "CrashLoopBackOff":
		return corev1.PodRunning
	}
	return corev1.PodPending
}

// podConditions are a scheduled pod's conditions, ready when its container is (broken "").
func podConditions(broken string, now metav1.Time) []corev1.PodCondition {
	ready, reason := corev1.ConditionTrue, ""
	if broken != "" {
		ready, reason = corev1.ConditionFalse, "ContainersNotReady"
	}
	created := corev1.ConditionTrue
	if podPhase(broken) == corev1.PodPending {
		created = corev1.ConditionFalse
	}
	return []corev1.PodCondition{
		{Type: corev1.PodReadyToStartContainers, Status: created, LastTransitionTime: now},
		{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: now},
		{Type: corev1.PodReady, Status: ready, Reason: reason, LastTransitionTime: now},
		{Type: corev1.ContainersReady, Status: ready, Reason: reason, LastTransitionTime: now},
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
	}
}

// sameWrittenStatus reports whether a pod's container status has every field the simulator
// writes (writePod) as want has it; nobody else writes a simulated pod's status.
func sameWrittenStatus(got, want corev1.ContainerStatus) bool {
	type written struct {
		name, waiting, waitingMessage, terminated, terminatedMessage string
		ready, running                                               bool
		restarts, exitCode                                           int32
	}
	of := func(cs corev1.ContainerStatus) written {
		w := written{name: cs.Name, ready: cs.Ready, running: cs.State.Running != nil, restarts: cs.RestartCount}
		if cs.State.Waiting != nil {
			w.waiting, w.waitingMessage = "waiting:"+cs.State.Waiting.Reason, cs.State.Waiting.Message
		}
		if t := cs.LastTerminationState.Terminated; t != nil {
			w.terminated, w.terminatedMessage, w.exitCode = "terminated:"+t.Reason, t.Message, t.ExitCode
		}
		return w
	}
	return of(got) == of(want)
}

func equalStatus(a, b appsv1.DeploymentStatus) bool {
	return a.ObservedGeneration == b.ObservedGeneration && a.Replicas == b.Replicas && a.UpdatedReplicas == b.UpdatedReplicas &&
		a.ReadyReplicas == b.ReadyReplicas && a.AvailableReplicas == b.AvailableReplicas && a.UnavailableReplicas == b.UnavailableReplicas
}
