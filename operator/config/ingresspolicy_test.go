package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	networkingv1 "k8s.io/api/networking/v1"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/config"
)

// TestIngressPolicyRefusal: what spec.ingress renders for FlinkDeployment "web" in namespace
// "team-a", against a policy; wantRefusal is status.error's message ("" allows).
func TestIngressPolicyRefusal(t *testing.T) {
	// tenant allows only hosts one label below the namespace's domain.
	tenant := config.IngressPolicy{AllowedHosts: "*.{{namespace}}.apps.example.com"}
	noWildcards := config.IngressPolicy{NoWildcardHosts: true}
	// annotations allows one nginx annotation and every cert-manager one.
	annotations := config.IngressPolicy{AllowedAnnotations: "nginx.ingress.kubernetes.io/rewrite-target,cert-manager.io/*"}
	snippet := map[string]string{"nginx.ingress.kubernetes.io/configuration-snippet": "more_set_headers \"X: y\";"}
	cases := map[string]struct {
		// policy is the namespace's Ingress policy.
		policy config.IngressPolicy
		// template and annotations are spec.ingress's.
		template    string
		annotations map[string]string
		tlsHosts    []string
		// wantRefusal is status.error's message, "" when the Ingress is allowed.
		wantRefusal string
	}{
		"defaults (Apache's): another tenant's host": {template: "web.team-b.apps.example.com"},
		"defaults (Apache's): a wildcard host":       {template: "*.example.com"},
		"defaults (Apache's): a snippet annotation":  {template: "{{name}}.example.com", annotations: snippet},
		"defaults (Apache's): no host":               {template: "/{{namespace}}/{{name}}(/|$)(.*)"},
		"{{namespace}} in a pattern: the own namespace": {
			policy: tenant, template: "{{name}}.{{namespace}}.apps.example.com",
		},
		"another tenant's host is refused": {
			policy: tenant, template: "x.other.apps.example.com",
			wantRefusal: `spec.ingress: host "x.other.apps.example.com" is not allowed by kubernetes.operator.ingress.allowed-hosts (allowed: *.{{namespace}}.apps.example.com)`,
		},
		"*. matches one label, not two": {
			policy: tenant, template: "a.{{name}}.{{namespace}}.apps.example.com",
			wantRefusal: `spec.ingress: host "a.web.team-a.apps.example.com" is not allowed by kubernetes.operator.ingress.allowed-hosts (allowed: *.{{namespace}}.apps.example.com)`,
		},
		"*. matches one label, not none": {
			policy: tenant, template: "{{namespace}}.apps.example.com",
			wantRefusal: `spec.ingress: host "team-a.apps.example.com" is not allowed by kubernetes.operator.ingress.allowed-hosts (allowed: *.{{namespace}}.apps.example.com)`,
		},
		"*. matches a DNS label only": {
			policy: tenant, template: "a_b.{{namespace}}.apps.example.com",
			wantRefusal: `spec.ingress: host "a_b.team-a.apps.example.com" is not allowed by kubernetes.operator.ingress.allowed-hosts (allowed: *.{{namespace}}.apps.example.com)`,
		},
		"hosts compare case-insensitively": {policy: tenant, template: "WEB.Team-A.Apps.Example.COM"},
		"a port is not part of the host":   {policy: tenant, template: "web.team-a.apps.example.com:8443"},
		"a path is not part of the host":   {policy: tenant, template: "https://web.team-a.apps.example.com/{{name}}(/|$)(.*)"},
		"a path does not hide another's host": {
			policy: tenant, template: "web.team-b.apps.example.com:443/team-a.apps.example.com",
			wantRefusal: `spec.ingress: host "web.team-b.apps.example.com:443" is not allowed by kubernetes.operator.ingress.allowed-hosts (allowed: *.{{namespace}}.apps.example.com)`,
		},
		"no host, when hosts are bounded": {
			policy: tenant, template: "/{{namespace}}/{{name}}",
			wantRefusal: `spec.ingress: an Ingress without a host (it answers for every host) is not allowed by kubernetes.operator.ingress.allowed-hosts (allowed: *.{{namespace}}.apps.example.com)`,
		},
		"exact names and {{name}}": {
			policy:   config.IngressPolicy{AllowedHosts: "ui.example.com,{{name}}.{{namespace}}.example.com"},
			template: "web.team-a.example.com",
		},
		"a wildcard host is refused when disallowed": {
			policy: noWildcards, template: "*.example.com",
			wantRefusal: `spec.ingress: host "*.example.com" is a wildcard, which kubernetes.operator.ingress.allow-wildcard-hosts=false does not allow`,
		},
		"a wildcard host within a pattern, wildcards allowed": {policy: tenant, template: "*.{{namespace}}.apps.example.com"},
		"a wildcard host within a pattern, wildcards refused": {
			policy: config.IngressPolicy{AllowedHosts: tenant.AllowedHosts, NoWildcardHosts: true}, template: "*.{{namespace}}.apps.example.com",
			wantRefusal: `spec.ingress: host "*.team-a.apps.example.com" is a wildcard, which kubernetes.operator.ingress.allow-wildcard-hosts=false does not allow`,
		},
		"a plain host, wildcards refused": {policy: noWildcards, template: "{{name}}.example.com"},
		"a snippet annotation is refused": {
			policy: annotations, template: "{{name}}.example.com", annotations: snippet,
			wantRefusal: `spec.ingress: annotation "nginx.ingress.kubernetes.io/configuration-snippet" is not allowed by kubernetes.operator.ingress.allowed-annotations (allowed: nginx.ingress.kubernetes.io/rewrite-target, cert-manager.io/*)`,
		},
		"allowed annotations, by key and by prefix": {
			policy: annotations, template: "{{name}}.example.com",
			annotations: map[string]string{"nginx.ingress.kubernetes.io/rewrite-target": "/$2", "cert-manager.io/cluster-issuer": "letsencrypt"},
		},
		"every refused annotation and the host are named": {
			policy:   config.IngressPolicy{AllowedHosts: tenant.AllowedHosts, AllowedAnnotations: annotations.AllowedAnnotations},
			template: "x.other.apps.example.com",
			annotations: map[string]string{
				"nginx.ingress.kubernetes.io/server-snippet": "", "nginx.ingress.kubernetes.io/rewrite-target-x": "", "cert-manager.io/issuer": "",
			},
			wantRefusal: `spec.ingress: host "x.other.apps.example.com" is not allowed by kubernetes.operator.ingress.allowed-hosts (allowed: *.{{namespace}}.apps.example.com); ` +
				`annotations "nginx.ingress.kubernetes.io/rewrite-target-x", "nginx.ingress.kubernetes.io/server-snippet" are not allowed by kubernetes.operator.ingress.allowed-annotations (allowed: nginx.ingress.kubernetes.io/rewrite-target, cert-manager.io/*)`,
		},
		"a TLS host of another tenant is refused": {
			policy: tenant, template: "{{name}}.{{namespace}}.apps.example.com", tlsHosts: []string{"web.team-a.apps.example.com", "bank.example.com"},
			wantRefusal: `spec.ingress: TLS host "bank.example.com" is not allowed by kubernetes.operator.ingress.allowed-hosts (allowed: *.{{namespace}}.apps.example.com)`,
		},
		"at most five refused annotations are named": {
			policy: annotations, template: "{{name}}.example.com",
			annotations: map[string]string{"a/1": "", "a/2": "", "a/3": "", "a/4": "", "a/5": "", "a/6": "", "a/7": ""},
			wantRefusal: `spec.ingress: annotations "a/1", "a/2", "a/3", "a/4", "a/5" and 2 more are not allowed by kubernetes.operator.ingress.allowed-annotations (allowed: nginx.ingress.kubernetes.io/rewrite-target, cert-manager.io/*)`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := &flinkv1beta1.IngressSpec{Template: tc.template, Annotations: tc.annotations}
			if tc.tlsHosts != nil {
				spec.TLS = []networkingv1.IngressTLS{{Hosts: tc.tlsHosts}}
			}
			got := tc.policy.Refusal(spec, "web", "team-a")
			if diff := cmp.Diff(tc.wantRefusal, got); diff != "" {
				t.Errorf("Refusal (-want +got):\n%s", diff)
			}
		})
	}
}

// TestIngressPolicyOptions: the options set the policy, tidied; a malformed value is an error
// naming its key; a resource's own configuration cannot set them.
func TestIngressPolicyOptions(t *testing.T) {
	cases := map[string]struct {
		conf       map[string]string
		wantPolicy config.IngressPolicy
		wantErr    string
	}{
		"unset: Apache's behaviour": {conf: map[string]string{}},
		"all three": {
			conf: map[string]string{
				config.KeyIngressAllowedHosts: " *.{{Namespace}}.Apps.example.com , ,ui.example.com", config.KeyIngressAllowWildcardHosts: "false",
				config.KeyIngressAllowedAnnotations: "nginx.ingress.kubernetes.io/rewrite-target, cert-manager.io/*",
			},
			wantPolicy: config.IngressPolicy{
				AllowedHosts: "*.{{namespace}}.apps.example.com,ui.example.com", NoWildcardHosts: true,
				AllowedAnnotations: "nginx.ingress.kubernetes.io/rewrite-target,cert-manager.io/*",
			},
		},
		"a host with a scheme": {conf: map[string]string{config.KeyIngressAllowedHosts: "https://x.example.com"}, wantErr: config.KeyIngressAllowedHosts},
		"two wildcards":        {conf: map[string]string{config.KeyIngressAllowedHosts: "*.*.example.com"}, wantErr: config.KeyIngressAllowedHosts},
		"not a boolean":        {conf: map[string]string{config.KeyIngressAllowWildcardHosts: "maybe"}, wantErr: config.KeyIngressAllowWildcardHosts},
		"a * inside a key":     {conf: map[string]string{config.KeyIngressAllowedAnnotations: "nginx.*/x"}, wantErr: config.KeyIngressAllowedAnnotations},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := config.Defaults().With(tc.conf)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("With() error = %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantPolicy, got.Ingress); diff != "" {
				t.Errorf("policy (-want +got):\n%s", diff)
			}
		})
	}
	own := config.OperatorKeys(map[string]string{config.KeyIngressAllowedHosts: "", config.KeyIngressAllowedAnnotations: "", config.KeyReconcileInterval: "1 min"})
	if diff := cmp.Diff(map[string]string{config.KeyReconcileInterval: "1 min"}, own); diff != "" {
		t.Errorf("a resource's operator keys (-want +got):\n%s", diff)
	}
}

// TestIngressPolicyPerNamespaceAndReloaded: a namespace's keys override the operator-wide
// policy, and a changed options file applies without a restart.
func TestIngressPolicyPerNamespaceAndReloaded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	write := func(content string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	live, err := config.NewLive(nil)
	if err != nil {
		t.Fatal(err)
	}
	write(`kubernetes.operator.ingress.allowed-hosts: "*.{{namespace}}.apps.example.com"
kubernetes.operator.default-configuration.namespace.platform.kubernetes.operator.ingress.allowed-hosts: ""
`)
	if changed, _, err := live.Reload(path); !changed || err != nil {
		t.Fatalf("Reload = %v, %v", changed, err)
	}
	want := map[string]config.IngressPolicy{"team-a": {AllowedHosts: "*.{{namespace}}.apps.example.com"}, "platform": {}}
	got := map[string]config.IngressPolicy{}
	for ns := range want {
		o, err := live.For(ns)
		if err != nil {
			t.Fatal(err)
		}
		got[ns] = o.Ingress
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("policies by namespace (-want +got):\n%s", diff)
	}
}
