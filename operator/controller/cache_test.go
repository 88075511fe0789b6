package controller

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/observe"
)

// TestCacheTransforms: the cache keeps of a ConfigMap (it holds ConfigMaps as metadata) its
// metadata without managedFields, and without annotations unless the operator rendered it
// (its content hash); of a Deployment's conditions only a true ReplicaFailure (the one the
// observer reads).
func TestCacheTransforms(t *testing.T) {
	managed := []metav1.ManagedFieldsEntry{{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate}}
	meta := func(labels map[string]string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: "x", Namespace: "ns", Labels: labels, ManagedFields: managed}
	}
	slim := func(m metav1.ObjectMeta) metav1.ObjectMeta { m.ManagedFields = nil; return m }
	haMeta := meta(map[string]string{act.LabelApp: "a", observe.LabelHAConfigMapType: observe.HAConfigMapType})
	haMeta.Annotations = map[string]string{"control-plane.alpha.kubernetes.io/leader": strings.Repeat("l", 1000)}
	forged := meta(map[string]string{act.LabelApp: "a", act.LabelType: act.TypeNative, "pad-1": "x", "pad-2": "y"})
	forged.Annotations = map[string]string{act.AnnotationContentHash: "h", "pad": strings.Repeat("p", 1000)}
	forgedKept := slim(forged)
	forgedKept.Labels = map[string]string{act.LabelApp: "a", act.LabelType: act.TypeNative}
	forgedKept.Annotations = map[string]string{act.AnnotationContentHash: "h"}
	longHash := meta(map[string]string{act.LabelApp: "a"})
	longHash.Annotations = map[string]string{act.AnnotationContentHash: strings.Repeat("h", 200)}
	confMeta := meta(map[string]string{act.LabelApp: "a", act.LabelType: act.TypeNative})
	confMeta.Annotations = map[string]string{act.AnnotationContentHash: "h"}
	noAnnotations := func(m metav1.ObjectMeta) metav1.ObjectMeta { m.Annotations = nil; return slim(m) }
	for name, tc := range map[string]struct {
		transform func(any) (any, error)
		in, want  any
	}{
		"HA ConfigMap metadata": {
			transform: slimConfigMap,
			in:        &metav1.PartialObjectMetadata{ObjectMeta: haMeta},
			want:      &metav1.PartialObjectMetadata{ObjectMeta: noAnnotations(haMeta)},
		},
		"flink-config ConfigMap metadata": {
			transform: slimConfigMap,
			in:        &metav1.PartialObjectMetadata{ObjectMeta: confMeta},
			want:      &metav1.PartialObjectMetadata{ObjectMeta: slim(confMeta)},
		},
		"a tenant's ConfigMap with the content hash keeps no more": {
			transform: slimConfigMap,
			in:        &metav1.PartialObjectMetadata{ObjectMeta: forged},
			want:      &metav1.PartialObjectMetadata{ObjectMeta: forgedKept},
		},
		"a content hash too long to be one is dropped": {
			transform: slimConfigMap,
			in:        &metav1.PartialObjectMetadata{ObjectMeta: longHash},
			want:      &metav1.PartialObjectMetadata{ObjectMeta: noAnnotations(longHash)},
		},
		"a typed ConfigMap keeps no data": {
			transform: slimConfigMap,
			in:        &corev1.ConfigMap{ObjectMeta: confMeta, Data: map[string]string{"config.yaml": "a: b"}},
			want:      &corev1.ConfigMap{ObjectMeta: slim(confMeta)},
		},
		"another type passes": {transform: slimConfigMap, in: "tombstone", want: "tombstone"},
		"Deployment conditions": {
			transform: slimDeployment,
			in: &appsv1.Deployment{ObjectMeta: confMeta, Status: appsv1.DeploymentStatus{ReadyReplicas: 1, Conditions: []appsv1.DeploymentCondition{
				{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Message: "Deployment has minimum availability."},
				{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: "quota"},
				{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Message: "progressed"},
			}}},
			want: &appsv1.Deployment{ObjectMeta: slim(confMeta), Status: appsv1.DeploymentStatus{ReadyReplicas: 1, Conditions: []appsv1.DeploymentCondition{
				{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: "quota"},
			}}},
		},
		"Deployment without a condition it reads": {
			transform: slimDeployment,
			in: &appsv1.Deployment{ObjectMeta: confMeta, Status: appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{
				{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionFalse},
			}}},
			want: &appsv1.Deployment{ObjectMeta: slim(confMeta)},
		},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := tc.transform(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("cached (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCacheOptionsWireTheTransforms: each kind's transform in CacheOptions is the one meant
// for it, and the default drops managedFields (read through SlimForCache, which the harness
// uses).
func TestCacheOptionsWireTheTransforms(t *testing.T) {
	hashed := map[string]string{act.AnnotationContentHash: "h"}
	managed := []metav1.ManagedFieldsEntry{{Manager: "x"}}
	for name, tc := range map[string]struct {
		obj     client.Object
		emptied func(client.Object) bool
	}{
		"Deployment template": {
			obj: &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Annotations: hashed}, Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: act.MainContainer}}},
			}}},
			emptied: func(o client.Object) bool { return len(o.(*appsv1.Deployment).Spec.Template.Spec.Containers) == 0 },
		},
		"flink-config data": {
			obj:     &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Annotations: hashed}, Data: map[string]string{"config.yaml": "a: b"}},
			emptied: func(o client.Object) bool { return o.(*corev1.ConfigMap).Data == nil },
		},
		"ConfigMap metadata annotations": {
			obj: &metav1.PartialObjectMetadata{
				TypeMeta:   act.ConfigMapMetadata("", "").TypeMeta,
				ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"control-plane.alpha.kubernetes.io/leader": "x"}},
			},
			emptied: func(o client.Object) bool { return o.GetAnnotations() == nil },
		},
		"pod metadata managedFields": {
			obj:     &metav1.PartialObjectMetadata{TypeMeta: act.PodMetadata().TypeMeta, ObjectMeta: metav1.ObjectMeta{ManagedFields: managed}},
			emptied: func(o client.Object) bool { return o.GetManagedFields() == nil },
		},
		"FlinkDeployment managedFields": {
			obj:     &flinkv1beta1.FlinkDeployment{ObjectMeta: metav1.ObjectMeta{ManagedFields: managed}},
			emptied: func(o client.Object) bool { return o.GetManagedFields() == nil },
		},
		"Service managedFields (default)": {
			obj:     &corev1.Service{ObjectMeta: metav1.ObjectMeta{ManagedFields: managed}},
			emptied: func(o client.Object) bool { return o.GetManagedFields() == nil },
		},
	} {
		t.Run(name, func(t *testing.T) {
			SlimForCache(tc.obj) // the transform CacheOptions gives the kind
			if !tc.emptied(tc.obj) {
				t.Errorf("cached %T kept what it should drop: %+v", tc.obj, tc.obj)
			}
		})
	}
}
