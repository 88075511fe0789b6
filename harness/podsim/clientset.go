package podsim

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Clientset is a client-go typed clientset over c, the world's API client: fakeflink's native
// resource manager talks to Kubernetes through a typed clientset, as Flink goes through its
// Kubernetes client, and in the harness every call of it goes to the same API (fake or real)
// the operator and the simulator use. It serves what the resource manager calls: get, list,
// create and delete of pods, ConfigMaps and Deployments. The simulated scheduler binds a pod
// to the simulator's node as it is created. The fake clientset records every action it
// serves: whoever keeps one calls ClearActions (the simulator does after each sync), and it
// serves one action at a time, so each resource manager gets its own.
func Clientset(c client.Client) *kubefake.Clientset {
	cs := &kubefake.Clientset{}
	cs.AddReactor("*", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		obj, err := route(context.Background(), c, a)
		return true, obj, err
	})
	return cs
}

// served are the resources the clientset serves, by their kind (no REST mapper needed: a
// test's fake API may have none for them).
var served = map[schema.GroupVersionResource]schema.GroupVersionKind{
	corev1.SchemeGroupVersion.WithResource("pods"):        corev1.SchemeGroupVersion.WithKind("Pod"),
	corev1.SchemeGroupVersion.WithResource("configmaps"):  corev1.SchemeGroupVersion.WithKind("ConfigMap"),
	appsv1.SchemeGroupVersion.WithResource("deployments"): appsv1.SchemeGroupVersion.WithKind("Deployment"),
}

// route makes one clientset action a call of c, by its verb: get, list, create and delete;
// anything else (update, patch, watch, a subresource) is refused, never mistaken for another.
func route(ctx context.Context, c client.Client, a clienttesting.Action) (runtime.Object, error) {
	gvk, ok := served[a.GetResource()]
	if !ok || a.GetSubresource() != "" {
		return nil, fmt.Errorf("%s %s/%s is not served", a.GetVerb(), a.GetResource(), a.GetSubresource())
	}
	switch a.GetVerb() {
	case "get":
		g := a.(clienttesting.GetAction) //nolint:forcetypeassert // the verb's action type
		obj, err := newObject(c, gvk)
		if err != nil {
			return nil, err
		}
		return obj, c.Get(ctx, client.ObjectKey{Namespace: g.GetNamespace(), Name: g.GetName()}, obj)
	case "list":
		l := a.(clienttesting.ListAction) //nolint:forcetypeassert // the verb's action type
		list, err := c.Scheme().New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err != nil {
			return nil, err
		}
		ol := list.(client.ObjectList) //nolint:forcetypeassert // a List kind of the scheme
		return ol, c.List(ctx, ol, client.InNamespace(l.GetNamespace()), client.MatchingLabelsSelector{Selector: l.GetListRestrictions().Labels})
	case "create":
		obj, ok := a.(clienttesting.CreateAction).GetObject().(client.Object) //nolint:forcetypeassert // the verb's action type
		if !ok {
			return nil, fmt.Errorf("create %s: not an object", a.GetResource().Resource)
		}
		if pod, ok := obj.(*corev1.Pod); ok && pod.Spec.NodeName == "" {
			pod.Spec.NodeName = NodeName // the simulated scheduler binds at once
		}
		return obj, c.Create(ctx, obj)
	case "delete":
		d := a.(clienttesting.DeleteAction) //nolint:forcetypeassert // the verb's action type
		obj, err := newObject(c, gvk)
		if err != nil {
			return nil, err
		}
		obj.SetNamespace(d.GetNamespace())
		obj.SetName(d.GetName())
		return nil, c.Delete(ctx, obj)
	}
	return nil, fmt.Errorf("%s %s is not served", a.GetVerb(), a.GetResource().Resource)
}

func newObject(c client.Client, gvk schema.GroupVersionKind) (client.Object, error) {
	o, err := c.Scheme().New(gvk)
	if err != nil {
		return nil, err
	}
	obj, ok := o.(client.Object)
	if !ok {
		return nil, fmt.Errorf("kind %s is not an object", gvk.Kind)
	}
	return obj, nil
}
