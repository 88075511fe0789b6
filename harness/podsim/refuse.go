package podsim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/fakeflink/kuberm"
)

// RefuseTaskManagerPods makes the API refuse, for d, the TaskManager pods a native cluster's
// resource manager creates (403, as a full namespace quota refuses them), and takes its newest
// TaskManager pod away (evicted), so that the resource manager must ask for one. A standalone
// cluster's TaskManager Deployment keeps its pods: the fault changes nothing there.
func (s *Sim) RefuseTaskManagerPods(ctx context.Context, namespace, cluster string, d time.Duration) error {
	if s.Kube != nil {
		return errors.New("refusing TaskManager pods needs the resource managers' own clientsets (Sim.Kube is set)")
	}
	s.mu.Lock()
	s.refused[namespace+"/"+cluster] = s.clock.Now().Add(d)
	s.mu.Unlock()
	var pods corev1.PodList
	sel := client.MatchingLabels(kuberm.Selector(cluster))
	if err := s.client.List(ctx, &pods, client.InNamespace(namespace), sel); err != nil {
		return fmt.Errorf("list TaskManager pods of %s: %w", cluster, err)
	}
	if len(pods.Items) == 0 {
		return nil
	}
	newest := slices.MaxFunc(pods.Items, func(a, b corev1.Pod) int { return kuberm.ByAge(a.Name, b.Name) })
	return client.IgnoreNotFound(s.client.Delete(ctx, &newest, client.GracePeriodSeconds(0)))
}

// refusing is the API's refusal of a TaskManager pod of a cluster, while one is injected.
func (s *Sim) refusing(namespace, cluster, pod string) error {
	key := namespace + "/" + cluster
	s.mu.Lock()
	until, ok := s.refused[key]
	if ok && !s.clock.Now().Before(until) {
		delete(s.refused, key) // the window is over: nothing kept per cluster
		ok = false
	}
	s.mu.Unlock()
	if !ok {
		return nil
	}
	return apierrors.NewForbidden(corev1.Resource("pods"), pod, errors.New("exceeded quota: compute-resources, requested: pods=1, used: pods=10, limited: pods=10"))
}

// refuseReactor answers a pod create of the resource manager's clientset with the API's
// refusal while one is injected for its cluster; anything else goes on to the API.
func (s *Sim) refuseReactor(a clienttesting.Action) (bool, runtime.Object, error) {
	create, ok := a.(clienttesting.CreateAction)
	if !ok {
		return false, nil, nil
	}
	pod, ok := create.GetObject().(*corev1.Pod)
	if !ok {
		return false, nil, nil
	}
	if err := s.refusing(pod.Namespace, pod.Labels[kuberm.LabelApp], pod.Name); err != nil {
		return true, nil, err
	}
	return false, nil, nil
}
