package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// LabelTargetSession labels a FlinkSessionJob with its session cluster's name (its
// spec.deploymentName), as the Apache operator's mutating webhook does: kubectl get
// flinksessionjobs -l target.session=<cluster> lists a cluster's jobs.
const LabelTargetSession = "target.session"

// FlinkSessionJobSpec is the desired state of a job on a session cluster.
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.deploymentName) || (has(self.deploymentName) && self.deploymentName == oldSelf.deploymentName)",message="spec.deploymentName is immutable: a session job cannot move to another session cluster"
type FlinkSessionJobSpec struct {
	// DeploymentName is the session FlinkDeployment (same namespace) the job runs on.
	// Required; immutable.
	// +optional
	DeploymentName string `json:"deploymentName,omitempty"`
	// Job is the job to run. Required.
	// +optional
	Job *JobSpec `json:"job,omitempty"`
	// RestartNonce: changing it restarts the job (per upgrade mode).
	// +optional
	RestartNonce *int64 `json:"restartNonce,omitempty"`
	// FlinkConfiguration is job-level Flink configuration, flat or nested YAML.
	// +optional
	FlinkConfiguration FlinkConfiguration `json:"flinkConfiguration,omitempty"`
}

// FlinkSessionJobStatus is the observed state of a FlinkSessionJob.
type FlinkSessionJobStatus struct {
	CommonStatus `json:",inline"`
}

// FlinkSessionJob is a Flink job submitted to a session cluster (a FlinkDeployment without job).
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=sessionjob
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Job Status",type=string,JSONPath=".status.jobStatus.state"
// +kubebuilder:printcolumn:name="Lifecycle State",type=string,JSONPath=".status.lifecycleState"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
type FlinkSessionJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state.
	// +optional
	Spec FlinkSessionJobSpec `json:"spec,omitempty"`
	// Status is the observed state.
	// +optional
	Status FlinkSessionJobStatus `json:"status,omitempty"`
}

// FlinkSessionJobList is a list of FlinkSessionJobs.
//
// +kubebuilder:object:root=true
type FlinkSessionJobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the FlinkSessionJobs.
	Items []FlinkSessionJob `json:"items"`
}
