// Package act renders the Kubernetes objects of a Flink cluster (JobManager and TaskManager
// Deployments, the REST and internal Services, the flink-config ConfigMap) and executes the one
// Action that decide chose: Kubernetes writes through a controller-runtime client, Flink REST
// calls through the operator/flink client. Rendering is pure; execution does the I/O.
package act
