package v1beta1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PodTemplate is a pod the operator merges into the pods it renders. Its shape is a whole Pod
// (apiVersion, kind, metadata, spec, status), as in the Apache operator, so existing manifests
// with "apiVersion: v1, kind: Pod" apply unchanged; only metadata and spec are used.
// The main Flink container is the one named flink-main-container.
type PodTemplate struct {
	metav1.TypeMeta `json:",inline"`
	// Metadata: labels and annotations are added to the rendered pods. Every field is kept as
	// written (the schema preserves unknown fields, as the Apache CRD does).
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Metadata metav1.ObjectMeta `json:"metadata,omitzero"`
	// Spec is merged into the rendered pod spec.
	// +optional
	Spec corev1.PodSpec `json:"spec,omitzero"`
	// Status is accepted for compatibility and ignored.
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Status *corev1.PodStatus `json:"status,omitempty"`
}
