package v1beta1

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateIngressTemplate checks an Ingress template on what it renders to for the resource:
// not empty, and a host (the part before the first /) that the API server takes.
func validateIngressTemplate(path *field.Path, template, name, namespace string) field.ErrorList {
	if template == "" {
		return field.ErrorList{field.Required(path, "a host and/or path template, e.g. {{name}}.{{namespace}}.example.com")}
	}
	if namespace == "" {
		namespace = "default" // a manifest without one is applied to a namespace
	}
	host, _ := IngressHostPath(template, name, namespace)
	if host == "" {
		return nil
	}
	check := validation.IsDNS1123Subdomain
	if strings.HasPrefix(host, "*.") {
		check = validation.IsWildcardDNS1123Subdomain
	}
	var errs field.ErrorList
	for _, msg := range check(host) {
		errs = append(errs, field.Invalid(path, template, "the host it names, "+host+": "+msg))
	}
	return errs
}

// IngressHostPath splits an ingress template into host and path, with {{name}} and
// {{namespace}} replaced; a template without a path routes "/".
func IngressHostPath(template, name, namespace string) (host, path string) {
	t := strings.NewReplacer("{{name}}", name, "{{namespace}}", namespace).Replace(template)
	t = strings.TrimPrefix(strings.TrimPrefix(t, "http://"), "https://")
	host, rest, found := strings.Cut(t, "/")
	if !found {
		return host, "/"
	}
	return host, "/" + rest
}
