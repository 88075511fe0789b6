package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// BlueGreenTemplate is the FlinkDeployment a blue/green resource runs, as a blue and, during a
// switch, a green child.
type BlueGreenTemplate struct {
	// Metadata is accepted as the Apache kind accepts it; like the Apache operator, Flinkop
	// does not use it (a child's metadata is its own: name, label and owner reference).
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	Metadata *runtime.RawExtension `json:"metadata,omitempty"`
	// Spec is the children's FlinkDeployment spec.
	// +optional
	Spec *FlinkDeploymentSpec `json:"spec,omitempty"`
}

// FlinkBlueGreenDeploymentSpec is the desired state of a blue/green deployment.
type FlinkBlueGreenDeploymentSpec struct {
	// Configuration holds the kubernetes.operator.bluegreen.* settings (abort.grace-period,
	// reconciliation.reschedule-interval, deployment-deletion.delay); other keys are refused.
	// +optional
	Configuration map[string]string `json:"configuration,omitempty"`
	// Ingress asks for an Ingress, named like the resource, to the REST Service of the
	// active child; it moves to a new child before the old one is deleted.
	// +optional
	Ingress *IngressSpec `json:"ingress,omitempty"`
	// Template is the FlinkDeployment the children run.
	// +optional
	Template BlueGreenTemplate `json:"template,omitempty"`
}

// BlueGreenState is where a blue/green deployment stands.
// +kubebuilder:validation:Enum=INITIALIZING_BLUE;ACTIVE_BLUE;ACTIVE_GREEN;TRANSITIONING_TO_BLUE;TRANSITIONING_TO_GREEN;SAVEPOINTING_BLUE;SAVEPOINTING_GREEN
type BlueGreenState string

// The blue/green states (the Apache operator's).
const (
	BlueGreenInitializingBlue     BlueGreenState = "INITIALIZING_BLUE"
	BlueGreenActiveBlue           BlueGreenState = "ACTIVE_BLUE"
	BlueGreenActiveGreen          BlueGreenState = "ACTIVE_GREEN"
	BlueGreenTransitioningToBlue  BlueGreenState = "TRANSITIONING_TO_BLUE"
	BlueGreenTransitioningToGreen BlueGreenState = "TRANSITIONING_TO_GREEN"
	BlueGreenSavepointingBlue     BlueGreenState = "SAVEPOINTING_BLUE"
	BlueGreenSavepointingGreen    BlueGreenState = "SAVEPOINTING_GREEN"
)

// FlinkBlueGreenDeploymentStatus is the observed state of a blue/green deployment.
type FlinkBlueGreenDeploymentStatus struct {
	// BlueGreenState is where the deployment stands.
	// +optional
	BlueGreenState BlueGreenState `json:"blueGreenState,omitempty"`
	// JobStatus summarises the job: RECONCILING while a child is deployed, RUNNING once it
	// is active, SUSPENDED, or FAILING after a failed switch (status.error says why). Only
	// its state is set.
	// +optional
	JobStatus JobStatus `json:"jobStatus,omitempty"`
	// LastReconciledSpec is the JSON ({"spec": …}) of the spec last acted on.
	// +optional
	LastReconciledSpec string `json:"lastReconciledSpec,omitempty"`
	// LastReconciledTimestamp is when the status was last written (RFC 3339).
	// +optional
	LastReconciledTimestamp string `json:"lastReconciledTimestamp,omitempty"`
	// AbortTimestamp is when a child being deployed that is not ready by then is given up
	// (RFC 3339; the epoch when no switch is in progress).
	// +optional
	AbortTimestamp string `json:"abortTimestamp,omitempty"`
	// DeploymentReadyTimestamp is when the child being deployed was first seen ready (RFC
	// 3339; the epoch when none is).
	// +optional
	DeploymentReadyTimestamp string `json:"deploymentReadyTimestamp,omitempty"`
	// SavepointTriggerID is Flink's id of the savepoint a switch takes of the active child.
	// +optional
	SavepointTriggerID string `json:"savepointTriggerId,omitempty"`
	// Error is the last error, as a message for people.
	// +optional
	Error string `json:"error,omitempty"`
}

// FlinkBlueGreenDeployment runs a FlinkDeployment as a blue and a green child: a change
// starts the other child from a savepoint of the active one, and removes the active one once
// the new one is stable.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=flinkbgdep
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Job Status",type=string,JSONPath=".status.jobStatus.state"
// +kubebuilder:printcolumn:name="Blue/Green State",type=string,JSONPath=".status.blueGreenState"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
type FlinkBlueGreenDeployment struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state.
	// +optional
	Spec FlinkBlueGreenDeploymentSpec `json:"spec,omitempty"`
	// Status is the observed state.
	// +optional
	Status FlinkBlueGreenDeploymentStatus `json:"status,omitempty"`
}

// FlinkBlueGreenDeploymentList is a list of FlinkBlueGreenDeployments.
//
// +kubebuilder:object:root=true
type FlinkBlueGreenDeploymentList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the FlinkBlueGreenDeployments.
	Items []FlinkBlueGreenDeployment `json:"items"`
}
