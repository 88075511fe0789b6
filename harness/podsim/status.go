package podsim

import (
	"context"
	"fmt"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
)

// writeStatus writes the Deployment's status and its one pod, as a kubelet and the deployment
// controller would.
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
	return s.writePod(ctx, dep, broken)
}

func (s *Sim) writePod(ctx context.Context, dep *appsv1.Deployment, broken string) error {
	key := client.ObjectKey{Namespace: dep.Namespace, Name: dep.Name + "-0"}
	status := corev1.ContainerStatus{Name: act.MainContainer, Ready: broken == ""}
	if broken != "" {
		status.State.Waiting = &corev1.ContainerStateWaiting{Reason: broken, Message: "simulated: " + mainContainer(dep).Image}
		s.failedStatus(dep.Namespace+"/"+dep.Name, &status)
	} else {
		status.State.Running = &corev1.ContainerStateRunning{}
	}
	s.mu.Lock()
	s.pods[key.String()] = true
	s.mu.Unlock()
	var existing corev1.Pod
	err := s.reader().Get(ctx, key, &existing)
	if apierrors.IsNotFound(err) {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name, Labels: maps.Clone(dep.Spec.Template.Labels)},
			Spec:       *dep.Spec.Template.Spec.DeepCopy(),
		}
		if err := s.client.Create(ctx, pod); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		existing = *pod
	} else if err != nil {
		return err
	}
	if len(existing.Status.ContainerStatuses) == 1 && sameWrittenStatus(existing.Status.ContainerStatuses[0], status) {
		return nil
	}
	existing = *existing.DeepCopy() // the reader's own object is only read
	existing.Status.ContainerStatuses = []corev1.ContainerStatus{status}
	if err := s.client.Status().Update(ctx, &existing); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return err
	}
	return nil // a conflict (a stale read) is written again on the next sync
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
