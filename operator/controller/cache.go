package controller

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
)

// CacheOptions are the manager's cache options: the watched namespaces (none: all), and for
// every kind the operator reads besides its own resources, a label selector that admits only
// the objects it owns, so its memory does not grow with what else runs in the cluster.
// Deployments, Services, Pods and Ingresses are the operator's when labelled
// app.kubernetes.io/managed-by=flinkop (pods through their Deployment's template); ConfigMaps
// when labelled type=flink-native-kubernetes: its flink-config ConfigMaps and Flink's HA
// ConfigMaps. An object outside the cache is invisible to the operator: a create that
// collides with one is resolved by an uncached read (see act.Executor.Reader).
func CacheOptions(namespaces []string) cache.Options {
	owned := cache.ByObject{Label: labels.SelectorFromSet(labels.Set{act.LabelManagedBy: act.ManagedBy})}
	opts := cache.Options{ByObject: map[client.Object]cache.ByObject{
		&appsv1.Deployment{}:    owned,
		&corev1.Service{}:       owned,
		&corev1.Pod{}:           owned,
		&networkingv1.Ingress{}: owned,
		&corev1.ConfigMap{}:     {Label: labels.SelectorFromSet(labels.Set{act.LabelType: act.TypeNative})},
	}}
	if len(namespaces) > 0 {
		opts.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range namespaces {
			opts.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	return opts
}
