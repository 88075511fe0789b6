package v1beta1

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KubernetesDeploymentMode says who creates the TaskManager pods.
// +kubebuilder:validation:Enum=native;standalone
type KubernetesDeploymentMode string

const (
	// DeploymentModeNative lets Flink's resource manager create the TaskManager pods: the
	// operator deploys the JobManager only (the default, as in the Apache operator).
	DeploymentModeNative KubernetesDeploymentMode = "native"
	// DeploymentModeStandalone has the operator create the TaskManager Deployment.
	DeploymentModeStandalone KubernetesDeploymentMode = "standalone"
)

// Resource is a shorthand for a Flink process's CPU, memory and ephemeral storage.
type Resource struct {
	// CPU is the number of cores (fractions allowed).
	// +optional
	CPU *float64 `json:"cpu,omitempty"`
	// Memory is the process memory, in Flink's or Kubernetes' notation (2048m, 2g, 2Gi).
	// +optional
	Memory string `json:"memory,omitempty"`
	// EphemeralStorage is the pod's ephemeral storage, in Kubernetes' notation.
	// +optional
	EphemeralStorage string `json:"ephemeralStorage,omitempty"`
}

// JobManagerSpec configures the JobManager pods.
type JobManagerSpec struct {
	// Resource is a shorthand for CPU and memory; Resources, when set, takes precedence.
	// +optional
	Resource Resource `json:"resource,omitempty"`
	// Resources are Kubernetes resource requirements of the main container.
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`
	// Replicas is the number of JobManagers; more than one needs high availability.
	// Defaults to 1.
	// +kubebuilder:validation:Minimum=1
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`
	// PodTemplate is merged into the JobManager pods, over spec.podTemplate.
	// +optional
	PodTemplate *PodTemplate `json:"podTemplate,omitempty"`
}

// TaskManagerSpec configures the TaskManager pods.
type TaskManagerSpec struct {
	// Resource is a shorthand for CPU and memory; Resources, when set, takes precedence.
	// +optional
	Resource Resource `json:"resource,omitempty"`
	// Resources are Kubernetes resource requirements of the main container.
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`
	// Replicas is the number of TaskManagers. When unset, parallelism divided by
	// taskmanager.numberOfTaskSlots, rounded up. The scale subresource sets it.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`
	// PodTemplate is merged into the TaskManager pods, over spec.podTemplate.
	// +optional
	PodTemplate *PodTemplate `json:"podTemplate,omitempty"`
}

// IngressSpec asks the operator for an Ingress to the Flink web UI.
type IngressSpec struct {
	// Template is the host and/or path, with {{name}} and {{namespace}} placeholders, e.g.
	// "{{name}}.{{namespace}}.flink.example.com" or "/{{namespace}}/{{name}}(/|$)(.*)".
	// +optional
	Template string `json:"template,omitempty"`
	// ClassName is the Ingress class.
	// +optional
	ClassName *string `json:"className,omitempty"`
	// Annotations are added to the Ingress.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
	// Labels are added to the Ingress.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// TLS configures TLS for the Ingress.
	// +optional
	TLS []networkingv1.IngressTLS `json:"tls,omitempty"`
}

// FlinkDeploymentSpec is the desired state of a Flink cluster and, in application mode, its job.
// +kubebuilder:validation:XValidation:rule="has(self.job) == has(oldSelf.job)",message="spec.job cannot be added or removed: switching between application and session mode is not supported; create a new FlinkDeployment instead"
type FlinkDeploymentSpec struct {
	// Job is the application job. Without it the deployment is a session cluster that
	// FlinkSessionJobs run on.
	// +optional
	Job *JobSpec `json:"job,omitempty"`
	// RestartNonce: changing it restarts the cluster and job (per upgrade mode).
	// +optional
	RestartNonce *int64 `json:"restartNonce,omitempty"`
	// FlinkConfiguration is Flink's configuration, flat ("a.b": "v") or nested YAML.
	// kubernetes.operator.* keys override operator options for this resource.
	// +optional
	FlinkConfiguration FlinkConfiguration `json:"flinkConfiguration,omitempty"`
	// Defaults are the Flink options the operator's configuration gives this resource (see
	// Conf): set in memory by the operator after each read, never stored or sent.
	Defaults map[string]string `json:"-"`
	// Image is the Flink container image.
	// +optional
	Image string `json:"image,omitempty"`
	// ImagePullPolicy of the Flink containers.
	// +optional
	ImagePullPolicy string `json:"imagePullPolicy,omitempty"`
	// ServiceAccount the Flink pods run as.
	// +optional
	ServiceAccount string `json:"serviceAccount,omitempty"`
	// FlinkVersion is the Flink release line of the image.
	// +optional
	FlinkVersion FlinkVersion `json:"flinkVersion,omitempty"`
	// Ingress asks for an Ingress to the web UI.
	// +optional
	Ingress *IngressSpec `json:"ingress,omitempty"`
	// PodTemplate is merged into JobManager and TaskManager pods.
	// +optional
	PodTemplate *PodTemplate `json:"podTemplate,omitempty"`
	// JobManager configures the JobManager pods.
	// +optional
	JobManager *JobManagerSpec `json:"jobManager,omitempty"`
	// TaskManager configures the TaskManager pods.
	// +optional
	TaskManager *TaskManagerSpec `json:"taskManager,omitempty"`
	// LogConfiguration overrides log configuration files by name (log4j-console.properties,
	// logback-console.xml).
	// +optional
	LogConfiguration map[string]string `json:"logConfiguration,omitempty"`
	// Mode is native (the default: Flink's resource manager creates the TaskManager pods) or
	// standalone (the operator creates a TaskManager Deployment).
	// +optional
	Mode KubernetesDeploymentMode `json:"mode,omitempty"`
}

// JobManagerDeploymentStatus is the observed state of the JobManager Deployment.
// +kubebuilder:validation:Enum=DEPLOYED_NOT_READY;DEPLOYING;ERROR;MISSING;READY
type JobManagerDeploymentStatus string

// The JobManager deployment states.
const (
	JobManagerDeployedNotReady JobManagerDeploymentStatus = "DEPLOYED_NOT_READY"
	JobManagerDeploying        JobManagerDeploymentStatus = "DEPLOYING"
	JobManagerError            JobManagerDeploymentStatus = "ERROR"
	JobManagerMissing          JobManagerDeploymentStatus = "MISSING"
	JobManagerReady            JobManagerDeploymentStatus = "READY"
)

// TaskManagerInfo is the TaskManager part of the status, read by the scale subresource.
type TaskManagerInfo struct {
	// LabelSelector selects the TaskManager pods.
	// +optional
	LabelSelector string `json:"labelSelector,omitempty"`
	// Replicas is the observed number of TaskManagers.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
}

// FlinkDeploymentStatus is the observed state of a FlinkDeployment.
type FlinkDeploymentStatus struct {
	CommonStatus `json:",inline"`
	// ClusterInfo holds facts about the running cluster (flink-version, flink-revision, …).
	// +optional
	ClusterInfo map[string]string `json:"clusterInfo,omitempty"`
	// JobManagerDeploymentStatus is the observed state of the JobManager Deployment.
	// +optional
	JobManagerDeploymentStatus JobManagerDeploymentStatus `json:"jobManagerDeploymentStatus,omitempty"`
	// TaskManager is the observed TaskManager scale, for the scale subresource.
	// +optional
	TaskManager *TaskManagerInfo `json:"taskManager,omitempty"`
	// Cron is the schedule of a cron template (a FlinkDeployment annotated job.execute.cron);
	// nil for other deployments. A Flinkop addition to the Apache status.
	// +optional
	Cron *CronStatus `json:"cron,omitempty"`
}

// CronStatus is what a cron template reports about its schedule and runs.
type CronStatus struct {
	// Schedule is the cron expression in effect; "" once the annotation was removed (no new
	// runs start).
	// +optional
	Schedule string `json:"schedule,omitempty"`
	// LastScheduleTime is the newest fire time handled (a run started, or the fire skipped):
	// no fire up to it runs again. When the schedule begins it is the time it began.
	// +optional
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`
	// NextScheduleTime is the next fire time.
	// +optional
	NextScheduleTime *metav1.Time `json:"nextScheduleTime,omitempty"`
	// LastRun is the newest run (a FlinkDeployment named <template>-<MMddHHmm>).
	// +optional
	LastRun string `json:"lastRun,omitempty"`
	// LastRunState is the newest run's job state (RUNNING, FINISHED, FAILED, …).
	// +optional
	LastRunState JobStatusState `json:"lastRunState,omitempty"`
	// Active names the runs whose job has not ended, oldest first.
	// +optional
	Active []string `json:"active,omitempty"`
}

// FlinkDeployment is a Flink cluster, with its job in application mode, managed by Flinkop.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=flinkdep
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.taskManager.replicas,statuspath=.status.taskManager.replicas,selectorpath=.status.taskManager.labelSelector
// +kubebuilder:printcolumn:name="Job Status",type=string,JSONPath=".status.jobStatus.state"
// +kubebuilder:printcolumn:name="Lifecycle State",type=string,JSONPath=".status.lifecycleState"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
type FlinkDeployment struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state.
	// +optional
	Spec FlinkDeploymentSpec `json:"spec,omitempty"`
	// Status is the observed state.
	// +optional
	Status FlinkDeploymentStatus `json:"status,omitempty"`
}

// FlinkDeploymentList is a list of FlinkDeployments.
//
// +kubebuilder:object:root=true
type FlinkDeploymentList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the FlinkDeployments.
	Items []FlinkDeployment `json:"items"`
}

// Native reports whether the spec runs as a native cluster: mode native, or unset.
func (s *FlinkDeploymentSpec) Native() bool { return s.Mode != DeploymentModeStandalone }
