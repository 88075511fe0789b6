// Package v1beta1 holds the Flinkop API: the FlinkDeployment, FlinkSessionJob,
// FlinkStateSnapshot and FlinkBlueGreenDeployment kinds of the flink.apache.org/v1beta1 group, field for field compatible with the Apache Flink Kubernetes
// Operator, so manifests written for that operator apply unchanged.
//
// The *_types.go files hold structs and kubebuilder markers only (CRD schema, CEL rules, printer
// columns, subresources); behaviour lives in the *_funcs.go files and validation.go.
//
// +kubebuilder:object:generate=true
// +groupName=flink.apache.org
package v1beta1
