package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// Backend is the Kubernetes API a world runs on: the controller-runtime fake client
// (deterministic, thousands of runs a minute) or a real kube-apiserver (harness/envtest).
type Backend interface {
	// Client is an administrator's client of the API.
	Client() client.WithWatch
	// Namespace is the namespace the world owns; it exists.
	Namespace() string
	// Name names the backend in traces and on screen ("fake", "envtest").
	Name() string
}

// DefaultNamespace is the namespace of a world on the fake backend.
const DefaultNamespace = "flink"

// fakeBackend is controller-runtime's fake client over client-go's object tracker.
type fakeBackend struct{ c client.WithWatch }

// FakeBackend returns a fresh fake API with the kinds the world uses and their status
// subresources. It keeps objects in client-go's plain object tracker: the operator does not
// use server-side apply, and the field-managed tracker would cost a third of every run.
func FakeBackend() (Backend, error) {
	scheme, err := sharedScheme()
	if err != nil {
		return nil, err
	}
	tracker := clienttesting.NewObjectTracker(scheme, fakeCodecs.UniversalDecoder())
	uids := &uidSource{}
	c := fake.NewClientBuilder().WithScheme(scheme).WithRESTMapper(fakeMapper).WithObjectTracker(tracker).
		WithStatusSubresource(&flinkv1beta1.FlinkDeployment{}, &flinkv1beta1.FlinkSessionJob{}, &flinkv1beta1.FlinkStateSnapshot{}, &flinkv1beta1.FlinkBlueGreenDeployment{},
			&appsv1.Deployment{}, &corev1.Pod{}).
		WithInterceptorFuncs(interceptor.Funcs{
			Get: fastGet(scheme, tracker), List: fastList(scheme, tracker),
			Create: uids.countGenerationOnCreate, Update: countGeneration,
		}).Build()
	return fakeBackend{c: c}, nil
}

// generationCounted are the kinds whose metadata.generation the API server counts (custom
// resources with a status subresource: spec changes only); the fake client counts none.
func generationCounted(obj client.Object) bool {
	switch obj.(type) {
	case *flinkv1beta1.FlinkDeployment, *flinkv1beta1.FlinkSessionJob, *flinkv1beta1.FlinkBlueGreenDeployment:
		return true
	}
	return false
}

// uidSource gives created objects the unique UIDs the API server gives them (the fake client
// gives none): uid-auto-1, uid-auto-2, … in creation order, so a seed replays.
type uidSource struct{ n int }

// countGenerationOnCreate gives a created object a UID when it has none, and starts a
// counted object at generation 1, as the API server does. Without UIDs, two children or
// cron runs the operator created would share their job ids (decide.JobIDFor derives them from
// the UID).
func (u *uidSource) countGenerationOnCreate(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
	if obj.GetUID() == "" && obj.GetGenerateName() == "" {
		u.n++
		obj.SetUID(types.UID(fmt.Sprintf("uid-auto-%d", u.n)))
	}
	if generationCounted(obj) && obj.GetGeneration() == 0 {
		obj.SetGeneration(1)
	}
	return c.Create(ctx, obj, opts...)
}

// countGeneration counts a spec change of a counted object, as the API server does: an update
// that changes the spec takes the stored generation plus one, any other keeps it.
func countGeneration(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
	if generationCounted(obj) {
		cur := obj.DeepCopyObject().(client.Object)
		if err := c.Get(ctx, client.ObjectKeyFromObject(obj), cur); err == nil {
			gen := cur.GetGeneration()
			if !sameJSON(specOf(cur), specOf(obj)) {
				gen++
			}
			obj.SetGeneration(gen)
		}
	}
	return c.Update(ctx, obj, opts...)
}

// sameJSON reports whether a and b encode alike: what the API server compares, so a field it
// never stores (json:"-", such as a spec's in-memory Defaults) changes no generation.
func sameJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// specOf is the Spec field of a counted object.
func specOf(obj client.Object) any {
	return reflect.ValueOf(obj).Elem().FieldByName("Spec").Interface()
}

// fastGet reads typed objects straight from the tracker (a deep copy), where the fake client
// would round-trip them through JSON; it returns what the fake client returns (TypeMeta
// cleared, no managed fields).
func fastGet(scheme *runtime.Scheme, tracker clienttesting.ObjectTracker) func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
	return func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
		gvk, err := apiutil.GVKForObject(obj, scheme)
		if _, unstructured := obj.(runtime.Unstructured); err != nil || unstructured {
			return c.Get(ctx, key, obj, opts...)
		}
		gvr, _ := meta.UnsafeGuessKindToResource(gvk)
		o, err := tracker.Get(gvr, key.Namespace, key.Name)
		if err != nil {
			return err
		}
		src, dst := reflect.ValueOf(o), reflect.ValueOf(obj)
		if src.Type() != dst.Type() {
			return c.Get(ctx, key, obj, opts...)
		}
		dst.Elem().Set(src.Elem())
		obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		obj.SetManagedFields(nil)
		return nil
	}
}

// The scheme, codecs and REST mapper are built once and shared by every fake world (they are
// read-only once built).
var (
	schemeOnce    sync.Once
	fakeScheme    *runtime.Scheme
	fakeCodecs    serializer.CodecFactory
	fakeMapper    meta.RESTMapper
	errFakeScheme error
)

func sharedScheme() (*runtime.Scheme, error) {
	schemeOnce.Do(func() {
		fakeScheme, errFakeScheme = smallScheme()
		if errFakeScheme != nil {
			return
		}
		fakeCodecs = serializer.NewCodecFactory(fakeScheme)
		m := meta.NewDefaultRESTMapper(nil)
		for gvk := range fakeScheme.AllKnownTypes() {
			m.Add(gvk, meta.RESTScopeNamespace)
		}
		fakeMapper = m
	})
	return fakeScheme, errFakeScheme
}

func (b fakeBackend) Client() client.WithWatch { return b.c }
func (fakeBackend) Namespace() string          { return DefaultNamespace }
func (fakeBackend) Name() string               { return "fake" }

// smallScheme registers only the kinds the world uses: the fake client looks types up often,
// and a small scheme keeps thousands of runs per minute possible.
func smallScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, networkingv1.AddToScheme, flinkv1beta1.AddToScheme} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// fastList lists typed objects (or their metadata) straight from the tracker, filtered by
// namespace and labels, where the fake client would round-trip them through JSON; other lists
// take the fake client's path.
func fastList(scheme *runtime.Scheme, tracker clienttesting.ObjectTracker) func(context.Context, client.WithWatch, client.ObjectList, ...client.ListOption) error {
	return func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
		lo := (&client.ListOptions{}).ApplyOptions(opts)
		gvk, err := apiutil.GVKForObject(list, scheme)
		_, unstructured := list.(runtime.Unstructured)
		if err != nil || unstructured || (lo.FieldSelector != nil && !lo.FieldSelector.Empty()) || lo.Limit > 0 || lo.Continue != "" {
			return c.List(ctx, list, opts...)
		}
		item := gvk
		item.Kind = strings.TrimSuffix(item.Kind, "List")
		gvr, _ := meta.UnsafeGuessKindToResource(item)
		o, err := tracker.List(gvr, item, lo.Namespace)
		if err != nil {
			return err
		}
		objs, err := meta.ExtractList(o)
		if err != nil {
			return err
		}
		kept := objs[:0]
		for _, obj := range objs {
			m, ok := obj.(metav1.Object)
			if ok && (lo.LabelSelector == nil || lo.LabelSelector.Matches(labels.Set(m.GetLabels()))) {
				if _, metadata := list.(*metav1.PartialObjectMetadataList); metadata {
					obj = shaped(obj.(client.Object), list)
				}
				kept = append(kept, obj)
			}
		}
		return meta.SetList(list, kept)
	}
}
