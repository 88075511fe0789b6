// Package controller holds the controller-runtime reconcilers for FlinkDeployment and
// FlinkSessionJob. They stay thin: fetch, finalizer, observe, validate, decide, act (one step),
// patch status once, requeue. The reconcilers arrive with the operator-core issue; today this
// package holds the RBAC the operator's ServiceAccount needs, as kubebuilder markers from which
// `make manifests` generates config/rbac/role.yaml.
package controller
