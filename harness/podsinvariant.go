package harness

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/fakeflink/kuberm"
	"github.com/flinkop/flinkop/harness/podsim"
)

// OrphanGrace is how long a native cluster's TaskManager pod may outlive the JobManager
// Deployment that owns it: the garbage collector's (the simulator's) next sync.
const OrphanGrace = 30 * time.Second

// podsAsKubeletShows (invariant P1): the pods are what a kubelet and the deployment controller
// would show (podsim.PodsDisagree), and every TaskManager pod of a native cluster is owned, as
// its controller, by its cluster's JobManager Deployment (Flink's resource manager sets that
// owner), and is gone within OrphanGrace once that Deployment is (the garbage collector).
func (c *Checker) podsAsKubeletShows() []string {
	ctx := context.Background()
	out, err := podsim.PodsDisagree(ctx, c.w.Client, c.w.Namespace)
	if err != nil {
		return []string{fmt.Sprintf("pods: %v (invariant P1)", err)}
	}
	for i, v := range out {
		out[i] = v + " (invariant P1)"
	}
	var pods corev1.PodList
	sel := client.MatchingLabels{kuberm.LabelType: kuberm.TypeNative, kuberm.LabelComponent: kuberm.ComponentTaskManager}
	if err := c.w.Client.List(ctx, &pods, client.InNamespace(c.w.Namespace), sel); err != nil {
		return append(out, fmt.Sprintf("TaskManager pods: %v (invariant P1)", err))
	}
	var deps appsv1.DeploymentList
	if err := c.w.Client.List(ctx, &deps, client.InNamespace(c.w.Namespace)); err != nil {
		return append(out, fmt.Sprintf("deployments: %v (invariant P1)", err))
	}
	return append(out, c.orphansCollected(pods.Items, deps.Items)...)
}

// orphansCollected holds the native TaskManager pods to their owner (see podsAsKubeletShows),
// remembering since when each pod's owner is gone.
func (c *Checker) orphansCollected(pods []corev1.Pod, deps []appsv1.Deployment) []string {
	live := map[string]string{}
	for _, d := range deps {
		if d.DeletionTimestamp == nil {
			live[d.Name] = string(d.UID)
		}
	}
	if c.orphans == nil {
		c.orphans = map[string]time.Time{}
	}
	now, seen := c.w.Now(), map[string]bool{}
	var out []string
	for i := range pods {
		p := &pods[i]
		owner := metav1.GetControllerOf(p)
		if owner == nil || owner.Kind != "Deployment" || owner.Name != p.Labels[kuberm.LabelApp] {
			out = append(out, fmt.Sprintf("TaskManager pod %s: not owned by its JobManager Deployment %s (invariant P1)", p.Name, p.Labels[kuberm.LabelApp]))
			continue
		}
		if uid, ok := live[owner.Name]; ok && uid == string(owner.UID) {
			continue
		}
		seen[p.Name] = true
		since, ok := c.orphans[p.Name]
		if !ok {
			c.orphans[p.Name], since = now, now
		}
		if now.Sub(since) > OrphanGrace {
			out = append(out, fmt.Sprintf("TaskManager pod %s: its JobManager Deployment %s is gone since %s, the pod is not (invariant P1)", p.Name, owner.Name, now.Sub(since)))
		}
	}
	for _, name := range slices.Collect(maps.Keys(c.orphans)) {
		if !seen[name] {
			delete(c.orphans, name)
		}
	}
	return out
}
