package act

import (
	"maps"
	"testing"

	"github.com/google/go-cmp/cmp"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
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

// TestIngressPolicySeesWhatIsRendered: the Ingress policy the decisions apply to a spec judges
// the host and annotations RenderIngress and RenderBlueGreenIngress put on the Ingress.
func TestIngressPolicySeesWhatIsRendered(t *testing.T) {
	policy := config.IngressPolicy{
		AllowedHosts: "*.{{namespace}}.apps.example.com", NoWildcardHosts: true, AllowedAnnotations: "cert-manager.io/*",
	}
	d := &flinkv1beta1.FlinkDeployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team", UID: "u"}}
	bg := &flinkv1beta1.FlinkBlueGreenDeployment{ObjectMeta: metav1.ObjectMeta{Name: "bg", Namespace: "team", UID: "u"}}
	cases := map[string]struct {
		template    string
		annotations map[string]string
		// wantRefused says whether the policy refuses it.
		wantRefused bool
	}{
		"own host":                   {template: "{{name}}.{{namespace}}.apps.example.com"},
		"another's host":             {template: "{{name}}.other.apps.example.com", wantRefused: true},
		"a wildcard":                 {template: "*.{{namespace}}.apps.example.com", wantRefused: true},
		"host, port and path":        {template: "https://{{name}}.{{namespace}}.apps.example.com:8443/{{name}}"},
		"no host":                    {template: "/{{namespace}}/{{name}}(/|$)(.*)", wantRefused: true},
		"a refused annotation":       {template: "{{name}}.{{namespace}}.apps.example.com", annotations: map[string]string{"nginx.ingress.kubernetes.io/server-snippet": "x"}, wantRefused: true},
		"an allowed annotation":      {template: "{{name}}.{{namespace}}.apps.example.com", annotations: map[string]string{"cert-manager.io/issuer": "x"}},
		"the hash is the operator's": {template: "{{name}}.{{namespace}}.apps.example.com", annotations: map[string]string{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := &flinkv1beta1.IngressSpec{Template: tc.template, Annotations: tc.annotations}
			bg.Spec.Ingress = spec
			for owner, r := range map[string]struct {
				ing  *networkingv1.Ingress
				name string
			}{"deployment": {RenderIngress(d, spec), d.Name}, "blue/green": {RenderBlueGreenIngress(bg, flinkv1beta1.Blue), bg.Name}} {
				annotations := maps.Clone(r.ing.Annotations)
				delete(annotations, AnnotationIngressHash)
				want := policy.Refusals(spec, r.name, r.ing.Namespace)
				got := policy.Check(r.ing.Spec.Rules[0].Host, annotations, r.name, r.ing.Namespace)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: the rendered Ingress is judged otherwise (-spec +rendered):\n%s", owner, diff)
				}
				if refused := len(got) > 0; refused != tc.wantRefused {
					t.Errorf("%s: refused %v (%+v), want %v", owner, refused, got, tc.wantRefused)
				}
			}
		})
	}
}
