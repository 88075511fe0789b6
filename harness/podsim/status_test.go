package podsim

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// sameWrittenStatus compares every field writePod writes, and no other.
func TestSameWrittenStatus(t *testing.T) {
	crashing := func() corev1.ContainerStatus {
		return corev1.ContainerStatus{
			Name: "flink-main-container", RestartCount: 1,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: 1, Reason: "Error", Message: "log tail",
			}},
		}
	}
	running := corev1.ContainerStatus{Name: "flink-main-container", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
	for name, tc := range map[string]struct {
		change func(*corev1.ContainerStatus)
		same   bool
	}{
		"unchanged":                 {func(*corev1.ContainerStatus) {}, true},
		"a field it does not write": {func(s *corev1.ContainerStatus) { s.ImageID = "sha256:1" }, true},
		"name":                      {func(s *corev1.ContainerStatus) { s.Name = "other" }, false},
		"ready":                     {func(s *corev1.ContainerStatus) { s.Ready = true }, false},
		"restarts":                  {func(s *corev1.ContainerStatus) { s.RestartCount = 2 }, false},
		"waiting reason":            {func(s *corev1.ContainerStatus) { s.State.Waiting.Reason = "ImagePullBackOff" }, false},
		"waiting message":           {func(s *corev1.ContainerStatus) { s.State.Waiting.Message = "other" }, false},
		"running": {func(s *corev1.ContainerStatus) {
			s.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Unix(1, 0)}}
		}, false},
		"exit code":          {func(s *corev1.ContainerStatus) { s.LastTerminationState.Terminated.ExitCode = 2 }, false},
		"termination reason": {func(s *corev1.ContainerStatus) { s.LastTerminationState.Terminated.Reason = "OOMKilled" }, false},
		"termination log":    {func(s *corev1.ContainerStatus) { s.LastTerminationState.Terminated.Message = "other" }, false},
		"no termination":     {func(s *corev1.ContainerStatus) { s.LastTerminationState.Terminated = nil }, false},
	} {
		t.Run(name, func(t *testing.T) {
			got := crashing()
			tc.change(&got)
			if same := sameWrittenStatus(got, crashing()); same != tc.same {
				t.Errorf("sameWrittenStatus = %t, want %t", same, tc.same)
			}
		})
	}
	if sameWrittenStatus(running, crashing()) || !sameWrittenStatus(running, running) {
		t.Error("a running container's status is the same as a crashing one's, or not as its own")
	}
}
