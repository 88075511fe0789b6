package act

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestUnchangedByContentHash: an object whose content the cache dropped is unchanged when its
// content hash, replicas and metadata match; any of them differing is a change; an object
// read whole (past the cache, or written before the hash) is compared whole. A Service, which
// the API server fills in, is compared by what the operator renders.
func TestUnchangedByContentHash(t *testing.T) {
	rendered := func(image string, replicas int32) *appsv1.Deployment {
		d := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "a-jm", Namespace: "ns", Annotations: map[string]string{AnnotationGeneration: "1"}},
			Spec: appsv1.DeploymentSpec{Replicas: ptr.To(replicas), Template: corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: MainContainer, Image: image}}},
			}},
		}
		stampContentHash(d)
		return d
	}
	cached := func(d *appsv1.Deployment) client.Object {
		o, _ := StripContent(d.DeepCopy())
		return o.(client.Object)
	}
	conf := func(data string) *corev1.ConfigMap {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "flink-config-a", Namespace: "ns"}, Data: map[string]string{"config.yaml": data}}
		stampContentHash(cm)
		return cm
	}
	service := func(port int32) *corev1.Service {
		return &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "a-rest", Namespace: "ns", Labels: map[string]string{"app": "a"}},
			Spec: corev1.ServiceSpec{
				Selector: map[string]string{"app": "a"},
				Ports:    []corev1.ServicePort{{Name: "rest", Port: port, TargetPort: intstr.FromInt32(port)}},
			},
		}
	}
	defaulted := func(s *corev1.Service) *corev1.Service { // as the API server returns it
		s.Spec.ClusterIP, s.Spec.ClusterIPs = "10.0.3.7", []string{"10.0.3.7"}
		s.Spec.SessionAffinity, s.Spec.Type = corev1.ServiceAffinityNone, corev1.ServiceTypeClusterIP
		s.Spec.Ports[0].Protocol = corev1.ProtocolTCP
		return s
	}
	edited := func(edit func(*corev1.Service)) *corev1.Service {
		s := defaulted(service(8081))
		edit(s)
		return s
	}
	headless := service(8081)
	headless.Spec.ClusterIP = corev1.ClusterIPNone
	withGeneration := rendered("flink:1.20", 1)
	withGeneration.Annotations[AnnotationGeneration] = "2"
	unhashed := rendered("flink:1.20", 1)
	delete(unhashed.Annotations, AnnotationContentHash)
	for name, tc := range map[string]struct {
		existing, want client.Object
		unchanged      bool
	}{
		"cached, same content":          {existing: cached(rendered("flink:1.20", 1)), want: rendered("flink:1.20", 1), unchanged: true},
		"cached, other image":           {existing: cached(rendered("flink:1.20", 1)), want: rendered("flink:1.19", 1)},
		"cached, other replicas":        {existing: cached(rendered("flink:1.20", 1)), want: rendered("flink:1.20", 2)},
		"cached, other annotation":      {existing: cached(rendered("flink:1.20", 1)), want: withGeneration},
		"read whole, same":              {existing: rendered("flink:1.20", 1), want: rendered("flink:1.20", 1), unchanged: true},
		"written before the hash":       {existing: cached(unhashed), want: rendered("flink:1.20", 1)},
		"cached ConfigMap, same data":   {existing: cachedCM(conf("a: b")), want: conf("a: b"), unchanged: true},
		"cached ConfigMap, other data":  {existing: cachedCM(conf("a: b")), want: conf("a: c")},
		"ConfigMap read whole, changed": {existing: conf("a: b"), want: conf("a: c")},
		"Service defaulted, same spec":  {existing: defaulted(service(8081)), want: service(8081), unchanged: true},
		"Service, other port":           {existing: defaulted(service(8081)), want: service(8082)},
		"Service, selector edited":      {existing: edited(func(s *corev1.Service) { s.Spec.Selector["app"] = "b" }), want: service(8081)},
		"Service, target port edited":   {existing: edited(func(s *corev1.Service) { s.Spec.Ports[0].TargetPort = intstr.FromInt32(9) }), want: service(8081)},
		"Service, port added":           {existing: edited(func(s *corev1.Service) { s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Port: 1}) }), want: service(8081)},
		"Service, label edited":         {existing: edited(func(s *corev1.Service) { s.Labels["app"] = "b" }), want: service(8081)},
		"Service made headless":         {existing: defaulted(service(8081)), want: headless},
	} {
		t.Run(name, func(t *testing.T) {
			if got := unchanged(tc.existing, tc.want); got != tc.unchanged {
				t.Errorf("unchanged = %v, want %v", got, tc.unchanged)
			}
		})
	}
}

func cachedCM(cm *corev1.ConfigMap) client.Object {
	o, _ := StripContent(cm.DeepCopy())
	return o.(client.Object)
}

// TestStripContent drops a hashed object's content and keeps an unhashed one whole.
func TestStripContent(t *testing.T) {
	d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: ptr.To(int32(2)), Template: corev1.PodTemplateSpec{
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: MainContainer}}},
	}}}
	d.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "x"}}
	whole, _ := StripContent(d.DeepCopy())
	if w := whole.(*appsv1.Deployment); len(w.Spec.Template.Spec.Containers) != 1 || len(w.ManagedFields) != 0 {
		t.Errorf("an unhashed Deployment lost its template or kept managedFields: %+v", w)
	}
	stampContentHash(d)
	slim, _ := StripContent(d.DeepCopy())
	if s := slim.(*appsv1.Deployment); len(s.Spec.Template.Spec.Containers) != 0 || *s.Spec.Replicas != 2 || !stripped(s) {
		t.Errorf("a hashed Deployment kept its template or lost its replicas: %+v", s.Spec)
	}
}

// TestMergeAnnotationsKeepsTheDeploymentControllers: a Deployment the deployment controller
// annotated is unchanged by a deploy of the same content; anything else follows the render.
func TestMergeAnnotationsKeepsTheDeploymentControllers(t *testing.T) {
	for name, tc := range map[string]struct {
		existing, rendered, want map[string]string
	}{
		"revision kept": {
			existing: map[string]string{"deployment.kubernetes.io/revision": "3", AnnotationGeneration: "1"},
			rendered: map[string]string{AnnotationGeneration: "2"},
			want:     map[string]string{"deployment.kubernetes.io/revision": "3", AnnotationGeneration: "2"},
		},
		"a removed annotation goes": {
			existing: map[string]string{"nginx.ingress.kubernetes.io/rewrite-target": "/", AnnotationRun: "r1"},
			rendered: map[string]string{},
			want:     map[string]string{},
		},
		"nothing rendered, nothing kept": {existing: nil, rendered: nil, want: nil},
	} {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, mergeAnnotations(tc.existing, tc.rendered)); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
		})
	}
}
