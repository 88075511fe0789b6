package act

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

func TestIngressHostPath(t *testing.T) {
	cases := map[string]struct {
		template           string
		wantHost, wantPath string
	}{
		"host template (Apache basic-ingress)":    {"{{name}}.{{namespace}}.flink.k8s.io", "web.team.flink.k8s.io", "/"},
		"path template (Apache advanced-ingress)": {"/{{namespace}}/{{name}}(/|$)(.*)", "", "/team/web(/|$)(.*)"},
		"host and path":       {"flink.example.com/{{name}}", "flink.example.com", "/web"},
		"a scheme is dropped": {"https://{{name}}.example.com", "web.example.com", "/"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			host, path := flinkv1beta1.IngressHostPath(tc.template, "web", "team")
			if host != tc.wantHost || path != tc.wantPath {
				t.Errorf("got %q %q, want %q %q", host, path, tc.wantHost, tc.wantPath)
			}
		})
	}
}

func TestRenderIngress(t *testing.T) {
	d := &flinkv1beta1.FlinkDeployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team", UID: "u"}}
	class := "nginx"
	spec := &flinkv1beta1.IngressSpec{
		Template: "/{{namespace}}/{{name}}(/|$)(.*)", ClassName: &class,
		Annotations: map[string]string{"nginx.ingress.kubernetes.io/rewrite-target": "/$2"},
		Labels:      map[string]string{"team": "data", LabelApp: "not-the-operators"},
		TLS:         []networkingv1.IngressTLS{{Hosts: []string{"flink.example.com"}, SecretName: "tls"}},
	}
	ing := RenderIngress(d, spec)
	pt := networkingv1.PathTypeImplementationSpecific
	wantSpec := networkingv1.IngressSpec{
		IngressClassName: &class, TLS: spec.TLS,
		Rules: []networkingv1.IngressRule{{IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
			Paths: []networkingv1.HTTPIngressPath{{Path: "/team/web(/|$)(.*)", PathType: &pt, Backend: networkingv1.IngressBackend{
				Service: &networkingv1.IngressServiceBackend{Name: "web-rest", Port: networkingv1.ServiceBackendPort{Number: RESTPort}},
			}}},
		}}}},
	}
	if diff := cmp.Diff(wantSpec, ing.Spec); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
	if ing.Annotations["nginx.ingress.kubernetes.io/rewrite-target"] != "/$2" || ing.Annotations[AnnotationIngressHash] == "" {
		t.Errorf("annotations %v", ing.Annotations)
	}
	if ing.Labels["team"] != "data" || ing.Labels[LabelApp] != "web" || ing.Labels[LabelManagedBy] != ManagedBy {
		t.Errorf("labels %v: the user's are kept, the operator's win", ing.Labels)
	}
	if refs := ing.OwnerReferences; len(refs) != 1 || refs[0].Name != "web" {
		t.Errorf("owner references %+v", refs)
	}
}
