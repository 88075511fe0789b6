package fleet

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The bystander objects: neither the operator's nor Flink's, in a namespace of their own.
const (
	BystanderConfigMaps = 20000
	BystanderPods       = 10000
	bystanderNamespace  = "bystanders"
)

// bystanders creates the bystander objects while the fleet runs, lets the watches settle and
// measures the operator's heap again: the manager's cache must not hold them.
func (f *fleet) bystanders(ctx context.Context) error {
	f.rep.BystanderBaseMB = f.operatorHeap(ctx)
	f.logf("creating %d ConfigMaps and %d Pods that are not the operator's", BystanderConfigMaps, BystanderPods)
	c := f.env.Client
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: bystanderNamespace}}); err != nil {
		return err
	}
	data := map[string]string{"application.properties": strings.Repeat("key=value\n", 100)} // 1 KB
	if err := parallel(ctx, 16, BystanderConfigMaps, func(ctx context.Context, i int) error {
		return c.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%05d", i), Namespace: bystanderNamespace, Labels: map[string]string{"app": "web"}},
			Data:       data,
		})
	}); err != nil {
		return fmt.Errorf("bystander ConfigMaps: %w", err)
	}
	if err := parallel(ctx, 16, BystanderPods, func(ctx context.Context, i int) error {
		return c.Create(ctx, bystanderPod(i))
	}); err != nil {
		return fmt.Errorf("bystander Pods: %w", err)
	}
	sleep(ctx, 15*time.Second) // a watch that received them would have by now
	f.rep.BystanderHeapMB = f.operatorHeap(ctx)
	f.rep.Bystanders = true
	return nil
}

func bystanderPod(i int) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("web-%05d", i), Namespace: bystanderNamespace,
			Labels: map[string]string{"app": "web", "pod-template-hash": "5d8f7c9b6"},
		},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "web", Image: "nginx:1.27", Args: []string{"--port", "8080"},
			Env: []corev1.EnvVar{{Name: "MODE", Value: "production"}, {Name: "REGION", Value: "eu-west-1"}},
		}}},
	}
}
