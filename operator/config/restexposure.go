package config

import (
	"fmt"
	"slices"
	"strings"
)

// KeyRESTServiceAllowedTypes is the REST Service types a resource's
// kubernetes.rest-service.exposed.type may choose, comma-separated, Flinkop's own: a
// NodePort or LoadBalancer Service exposes the Flink REST API, which runs any code it is
// given, outside the cluster, and the operator creates it with its own rights. Like the
// Ingress policy, only the operator's options set it, operator-wide or per namespace. Unset:
// any (as the Apache operator).
const KeyRESTServiceAllowedTypes = "kubernetes.operator.rest-service.allowed-exposed-types"

// restServiceTypes are Flink's values of kubernetes.rest-service.exposed.type.
var restServiceTypes = []string{"ClusterIP", "NodePort", "LoadBalancer", "Headless_ClusterIP"}

// readRESTServiceTypes reads KeyRESTServiceAllowedTypes into p.
func (p *IngressPolicy) readRESTServiceTypes(conf map[string]string) []string {
	v, ok := conf[KeyRESTServiceAllowedTypes]
	if !ok {
		return nil
	}
	types := commaList(v)
	for _, t := range types {
		if !slices.Contains(restServiceTypes, t) {
			return []string{fmt.Sprintf("%s: %q is none of %s", KeyRESTServiceAllowedTypes, t, strings.Join(restServiceTypes, ", "))}
		}
	}
	if len(types) == 0 {
		return []string{fmt.Sprintf("%s: %q names no type", KeyRESTServiceAllowedTypes, v)}
	}
	p.RESTServiceTypes = strings.Join(types, ",")
	return nil
}

// RESTServiceRefusal says why the policy refuses the REST Service type a resource's Flink
// configuration conf asks for ("" when it allows it; ClusterIP when unset).
func (p IngressPolicy) RESTServiceRefusal(conf map[string]string) string {
	if p.RESTServiceTypes == "" {
		return ""
	}
	t := strings.TrimSpace(conf["kubernetes.rest-service.exposed.type"])
	if t == "" {
		t = "ClusterIP"
	}
	for _, allowed := range strings.Split(p.RESTServiceTypes, ",") {
		if strings.EqualFold(allowed, t) { // Flink reads the type in any case
			return ""
		}
	}
	return fmt.Sprintf("flinkConfiguration: kubernetes.rest-service.exposed.type: %s is not allowed by the operator's %s (%s)", t, KeyRESTServiceAllowedTypes, p.RESTServiceTypes)
}
