// Package act renders the Kubernetes objects of a Flink cluster (JobManager and TaskManager
// Deployments, Services, the flink-config ConfigMap, Ingress) and executes the one Action decide
// chose. It arrives with the operator-core issue.
package act
