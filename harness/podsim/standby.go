package podsim

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/flinkop/flinkop/fakeflink/image"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// sharedAddress is why the TaskManagers of a JobManager Deployment cannot register with it
// ("" when they can). With HA and several JobManager replicas, the leader publishes the
// address it advertises (jobmanager.rpc.address as the process read it) for the TaskManagers
// to connect to; each JobManager must advertise its own, its pod's IP. One that advertises a
// shared name (a Service) sends a TaskManager to whichever replica the Service picks, and a
// standby refuses it (Flink's FencingTokenException). Flink refuses only the TaskManagers that
// land on a standby; the simulator, stricter, lets none register, so that the mistake cannot
// pass unseen.
func sharedAddress(dep *appsv1.Deployment, l launch) string {
	p := l.proc
	if p == nil || p.Component != image.ComponentJobManager || ptrOr(dep.Spec.Replicas, 1) < 2 || !flinkv1beta1.HAEnabled(p.Config) {
		return ""
	}
	addr, own := p.Config["jobmanager.rpc.address"], l.pod.Env[image.PodIPEnv]
	if addr == own {
		return ""
	}
	return fmt.Sprintf("%d JobManagers advertise the shared address %q instead of their pod IPs: "+
		"a TaskManager that reaches a standby is refused (FencingTokenException)", ptrOr(dep.Spec.Replicas, 1), addr)
}
