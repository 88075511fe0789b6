// Package kuberm is fakeflink's native Kubernetes resource manager: what Flink's
// KubernetesResourceManagerDriver does for a JobManager started in native mode. It creates
// the TaskManager pods the job's slot requests need, through the Kubernetes API (client-go's
// typed clientset, as Flink goes through its Kubernetes client), with Flink's pod names,
// labels, owner reference and decorators over the TaskManager pod template; it replaces a
// pod that is lost or failed, releases pods left idle past resourcemanager.taskmanager-timeout,
// and fails as Flink fails when the API refuses a pod. The harness's pod simulator and the
// fakeflink image (in-cluster, under the Flink ServiceAccount) both run it.
package kuberm
