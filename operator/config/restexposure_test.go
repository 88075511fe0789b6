package config

import (
	"strings"
	"testing"
)

func TestRESTServicePolicy(t *testing.T) {
	var p IngressPolicy
	if errs := p.read(map[string]string{KeyRESTServiceAllowedTypes: "ClusterIP, Headless_ClusterIP"}); len(errs) > 0 {
		t.Fatal(errs)
	}
	for typ, refused := range map[string]bool{"": false, "ClusterIP": false, "Headless_ClusterIP": false, "NodePort": true, "LoadBalancer": true} {
		why := p.RESTServiceRefusal(map[string]string{"kubernetes.rest-service.exposed.type": typ})
		if (why != "") != refused || (refused && !strings.Contains(why, KeyRESTServiceAllowedTypes)) {
			t.Errorf("type %q: refusal %q; want refused %t, naming the option", typ, why, refused)
		}
	}
	if why := (IngressPolicy{}).RESTServiceRefusal(map[string]string{"kubernetes.rest-service.exposed.type": "LoadBalancer"}); why != "" {
		t.Errorf("no policy refused LoadBalancer: %s", why)
	}
	for _, bad := range []string{"Ingress", " , "} {
		if errs := new(IngressPolicy).read(map[string]string{KeyRESTServiceAllowedTypes: bad}); len(errs) == 0 {
			t.Errorf("%q was read", bad)
		}
	}
	if !IsIngressPolicyKey(KeyRESTServiceAllowedTypes) {
		t.Error("a resource's own flinkConfiguration could set the REST Service policy")
	}
}
