package controller

// The operator's permissions, kept in alphabetical order of API group and resource. The
// leader election Lease lives in the operator's own namespace only (a Role there), with the
// Events leader election records about it (which a namespaced install needs there too). The
// metrics endpoint's TokenReview and SubjectAccessReview rights are a separate ClusterRole
// (config/rbac/metrics_auth_role.yaml), so the namespaced install can bind this one per
// watched namespace.
//
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch;create;update;patch;delete,namespace=flinkop-system
// +kubebuilder:rbac:groups="";events.k8s.io,resources=events,verbs=create;patch,namespace=flinkop-system
// +kubebuilder:rbac:groups=flink.apache.org,resources=flinkdeployments;flinksessionjobs;flinkstatesnapshots;flinkbluegreendeployments,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=flink.apache.org,resources=flinkdeployments/finalizers;flinksessionjobs/finalizers;flinkstatesnapshots/finalizers;flinkbluegreendeployments/finalizers,verbs=update
// +kubebuilder:rbac:groups=flink.apache.org,resources=flinkdeployments/status;flinksessionjobs/status;flinkstatesnapshots/status;flinkbluegreendeployments/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=networking.k8s.io,resources=ingresses,verbs=get;list;watch;create;update;patch;delete
