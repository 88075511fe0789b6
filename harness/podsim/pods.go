package podsim

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/fakeflink/kuberm"
	"github.com/flinkop/flinkop/operator/act"
)

// PodsDisagree says where the pods of namespace's operator-made Deployments, and the
// TaskManager pods of its native clusters, are not what a kubelet and the deployment
// controller would show: a Deployment whose status counts
// replicas (or ready ones) its pods do not have, a pod whose phase, Ready condition and
// container states do not agree. Empty when they all agree; Deployments being deleted, and
// the ones the simulator has not written a status for yet, are skipped.
func PodsDisagree(ctx context.Context, r client.Reader, namespace string) ([]string, error) {
	var deps appsv1.DeploymentList
	if err := r.List(ctx, &deps, client.InNamespace(namespace), client.MatchingLabels{act.LabelManagedBy: act.ManagedBy}); err != nil {
		return nil, fmt.Errorf("list deployments: %w", err)
	}
	var out []string
	for _, d := range deps.Items {
		if d.DeletionTimestamp != nil || d.Status.ObservedGeneration != d.Generation {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil {
			return nil, fmt.Errorf("deployment %s: %w", d.Name, err)
		}
		var pods corev1.PodList
		if err := r.List(ctx, &pods, client.InNamespace(namespace), client.MatchingLabelsSelector{Selector: sel}); err != nil {
			return nil, fmt.Errorf("list pods: %w", err)
		}
		ready := int32(0)
		for i := range pods.Items {
			p := &pods.Items[i]
			if why := podDisagrees(p); why != "" {
				out = append(out, fmt.Sprintf("pod %s: %s", p.Name, why))
			}
			if podReady(p) {
				ready++
			}
		}
		if n := int32(len(pods.Items)); n != d.Status.Replicas || ready != d.Status.ReadyReplicas {
			out = append(out, fmt.Sprintf("deployment %s: status %d/%d ready, its pods %d/%d", d.Name, d.Status.ReadyReplicas, d.Status.Replicas, ready, n))
		}
	}
	// The TaskManager pods native JobManagers made belong to no Deployment's selector.
	var tms corev1.PodList
	sel := client.MatchingLabels{kuberm.LabelType: kuberm.TypeNative, kuberm.LabelComponent: kuberm.ComponentTaskManager}
	if err := r.List(ctx, &tms, client.InNamespace(namespace), sel); err != nil {
		return nil, fmt.Errorf("list TaskManager pods: %w", err)
	}
	for i := range tms.Items {
		if why := podDisagrees(&tms.Items[i]); why != "" {
			out = append(out, fmt.Sprintf("pod %s: %s", tms.Items[i].Name, why))
		}
	}
	return out, nil
}

// podReady reports the pod's Ready condition.
func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podDisagrees says what in a pod's status a kubelet would not write ("" when nothing): it
// is Ready exactly when Running with every container ready, scheduled to a node, and no
// container of a Pending pod runs.
func podDisagrees(p *corev1.Pod) string {
	allReady, running := len(p.Status.ContainerStatuses) > 0, false
	for _, cs := range p.Status.ContainerStatuses {
		allReady = allReady && cs.Ready
		running = running || cs.State.Running != nil
	}
	switch {
	case p.Spec.NodeName == "" && p.Status.Phase != "":
		return fmt.Sprintf("phase %s without a node", p.Status.Phase)
	case podReady(p) != (p.Status.Phase == corev1.PodRunning && allReady):
		return fmt.Sprintf("Ready %t, phase %q, containers ready %t", podReady(p), p.Status.Phase, allReady)
	case p.Status.Phase == corev1.PodPending && running:
		return "Pending with a running container"
	case p.Status.Phase == "" && len(p.Status.ContainerStatuses) > 0:
		return "container statuses without a phase"
	}
	return ""
}

// PodIP is the address the simulator gives the pod namespace/name: 10.x.y.z from a hash of
// its key, the same on every sync.
func PodIP(podKey string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(podKey))
	n := h.Sum32()
	return fmt.Sprintf("10.%d.%d.%d", byte(n>>16), byte(n>>8), byte(n)|1)
}

// expandArgs expands $(NAME) in args as the kubelet does, for the container's variables whose
// values it knows: a plain value, or the pod's IP (status.podIP); $$ stands for $, and a
// reference to anything else stays as it is.
func expandArgs(c *corev1.Container, podIP string) []string {
	vars := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			vars[e.Name] = e.Value
		case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "status.podIP":
			vars[e.Name] = podIP
		}
	}
	out := make([]string, len(c.Args))
	for i, a := range c.Args {
		out[i] = expand(a, vars)
	}
	return out
}

// expand is one argument with its references expanded.
func expand(s string, vars map[string]string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '$' && i+1 < len(s) && s[i+1] == '$':
			b.WriteByte('$')
			i++
		case s[i] == '$' && i+1 < len(s) && s[i+1] == '(':
			end := strings.IndexByte(s[i:], ')')
			if end < 0 {
				b.WriteString(s[i:])
				return b.String()
			}
			name := s[i+2 : i+end]
			if v, ok := vars[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(s[i : i+end+1])
			}
			i += end
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
