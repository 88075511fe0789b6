// Package controller holds the controller-runtime reconcilers. They stay thin: fetch,
// finalizer, observe (operator/observe), decide (operator/decide, pure), act (operator/act,
// one step), patch status once, requeue. The RBAC the operator's ServiceAccount needs is kept
// as kubebuilder markers in rbac.go, from which `make manifests` generates config/rbac.
package controller
