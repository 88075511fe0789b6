package config

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// Keys of the Ingress policy, Flinkop's own. Only the operator's options set them, operator-wide
// or per namespace (NamespacePrefix); a resource's flinkConfiguration cannot (OperatorKeys
// leaves them out), since the policy bounds what that resource may ask for.
const (
	KeyIngressAllowedHosts       = "kubernetes.operator.ingress.allowed-hosts"
	KeyIngressAllowWildcardHosts = "kubernetes.operator.ingress.allow-wildcard-hosts"
	KeyIngressAllowedAnnotations = "kubernetes.operator.ingress.allowed-annotations"
	// KeyIngressManage is Apache's: false leaves every Ingress alone (none created, updated or
	// deleted), and a spec.ingress is warned about.
	KeyIngressManage = "kubernetes.operator.ingress.manage"
)

// IngressRefusalPrefix starts every message of IngressPolicy.Refusal.
const IngressRefusalPrefix = "spec.ingress: "

// IngressPolicy bounds the Ingress a resource's spec.ingress renders. Its zero value allows
// any host and any annotation, as the Apache operator does. It is comparable (Options are
// compared whole), so its lists are kept as their options write them, tidied.
type IngressPolicy struct {
	// AllowedHosts are host patterns, lower-case and comma-separated: a DNS name in which
	// {{namespace}} and {{name}} stand for the resource's, optionally starting with "*." for
	// exactly one more DNS label. Empty: any host. When set, an Ingress without a host is
	// refused (its rule answers for whatever host the Ingress controller serves).
	AllowedHosts string
	// NoWildcardHosts refuses a host that is itself a wildcard ("*.example.com").
	NoWildcardHosts bool
	// AllowedAnnotations are annotation keys, comma-separated, one ending in "*" matching
	// every key it is a prefix of. Empty: any annotation.
	AllowedAnnotations string
	// RESTServiceTypes are the REST Service types a resource may choose, comma-separated
	// (KeyRESTServiceAllowedTypes). Empty: any.
	RESTServiceTypes string
	// Unmanaged is KeyIngressManage false.
	Unmanaged bool
}

// UnmanagedWarning is the Warning's message for a spec.ingress the operator does not manage.
const UnmanagedWarning = IngressRefusalPrefix + "not applied: Ingress management is turned off (" + KeyIngressManage + " is false); no Ingress is created, updated or deleted"

// IngressRefusal is one rule of an IngressPolicy that an Ingress breaks.
type IngressRefusal struct {
	// Option is the option whose rule it breaks.
	Option string
	// Annotations are the refused annotation keys, sorted (KeyIngressAllowedAnnotations only).
	Annotations []string
	// Message says what is refused, by which option, and what that option allows.
	Message string
}

// IsIngressPolicyKey reports whether key is one of the Ingress policy's.
func IsIngressPolicyKey(key string) bool {
	return key == KeyIngressAllowedHosts || key == KeyIngressAllowWildcardHosts || key == KeyIngressAllowedAnnotations ||
		key == KeyRESTServiceAllowedTypes || key == KeyIngressManage
}

// read overrides p with the Ingress policy's keys of conf; it returns an error for each
// malformed value (p then keeps that part).
func (p *IngressPolicy) read(conf map[string]string) []string {
	var errs []string
	if v, ok := conf[KeyIngressAllowedHosts]; ok {
		hosts, err := hostPatterns(v)
		if err != nil {
			errs = append(errs, err.Error())
		} else {
			p.AllowedHosts = hosts
		}
	}
	errs = append(errs, readNegated(conf, KeyIngressAllowWildcardHosts, &p.NoWildcardHosts)...)
	errs = append(errs, readNegated(conf, KeyIngressManage, &p.Unmanaged)...)
	if v, ok := conf[KeyIngressAllowedAnnotations]; ok {
		keys, err := annotationPatterns(v)
		if err != nil {
			errs = append(errs, err.Error())
		} else {
			p.AllowedAnnotations = keys
		}
	}
	return append(errs, p.readRESTServiceTypes(conf)...)
}

// readNegated sets *dst to the opposite of key's boolean value in conf, when it is set; it
// returns the error naming the key of a value that is not true or false.
func readNegated(conf map[string]string, key string, dst *bool) []string {
	v, ok := conf[key]
	if !ok {
		return nil
	}
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		return []string{fmt.Sprintf("%s: %q is not true or false", key, v)}
	}
	*dst = !b
	return nil
}

// commaList splits a comma-separated value into its trimmed, non-empty items (nil: none).
func commaList(v string) []string {
	var out []string
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// hostPatterns reads KeyIngressAllowedHosts: each pattern, the placeholders aside, is a DNS
// name, optionally after "*.".
func hostPatterns(v string) (string, error) {
	out := commaList(strings.ToLower(v))
	for _, p := range out {
		name := strings.NewReplacer("{{namespace}}", "x", "{{name}}", "x").Replace(strings.TrimPrefix(p, "*."))
		if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
			return "", fmt.Errorf("%s: %q is not a host pattern (a DNS name, in which {{namespace}} and {{name}} may appear, optionally starting with *.): %s",
				KeyIngressAllowedHosts, p, strings.Join(errs, "; "))
		}
	}
	return strings.Join(out, ","), nil
}

// annotationPatterns reads KeyIngressAllowedAnnotations: each item is an annotation key, or
// a prefix of keys followed by "*".
func annotationPatterns(v string) (string, error) {
	out := commaList(v)
	for _, p := range out {
		prefix, wildcard := strings.CutSuffix(p, "*")
		var errs []string
		switch {
		case strings.ContainsAny(prefix, "* \t"):
			errs = []string{`only a trailing "*" is allowed, and no spaces`}
		case !wildcard:
			errs = validation.IsQualifiedName(p)
		}
		if len(errs) > 0 {
			return "", fmt.Errorf("%s: %q is not an annotation key or a prefix ending in *: %s", KeyIngressAllowedAnnotations, p, strings.Join(errs, "; "))
		}
	}
	return strings.Join(out, ","), nil
}

// Refusals checks what spec renders for the resource name in namespace (the host of its
// expanded template, the hosts of its TLS entries, its annotations) against p: the rules it
// breaks (none for a nil spec). A TLS host is held to the host rules too: a certificate
// issuer reading the Ingress (cert-manager's ingress-shim) would ask for it.
func (p IngressPolicy) Refusals(spec *flinkv1beta1.IngressSpec, name, namespace string) []IngressRefusal {
	if spec == nil {
		return nil
	}
	host, _ := flinkv1beta1.IngressHostPath(spec.Template, name, namespace)
	out := p.Check(host, spec.Annotations, name, namespace)
	for _, tls := range spec.TLS {
		for _, h := range tls.Hosts {
			for _, r := range p.hostRefusals(h, name, namespace) {
				r.Message = "TLS " + r.Message
				out = append(out, r)
			}
		}
	}
	return out
}

// Refusal is Refusals as status.error says it: "" when p allows spec, else
// IngressRefusalPrefix and every rule it breaks.
func (p IngressPolicy) Refusal(spec *flinkv1beta1.IngressSpec, name, namespace string) string {
	refused := p.Refusals(spec, name, namespace)
	if len(refused) == 0 {
		return ""
	}
	msgs := make([]string, len(refused))
	for i, r := range refused {
		msgs[i] = r.Message
	}
	return IngressRefusalPrefix + strings.Join(msgs, "; ")
}

// Check returns the rules of p that an Ingress for the resource name in namespace breaks,
// with host its rule's host (the template expanded; "" for none) and annotations those of
// spec.ingress. Hosts compare case-insensitively, without a port or a path.
func (p IngressPolicy) Check(host string, annotations map[string]string, name, namespace string) []IngressRefusal {
	return append(p.hostRefusals(host, name, namespace), p.annotationRefusals(annotations)...)
}

// hostRefusals are the rules of p that host breaks.
func (p IngressPolicy) hostRefusals(host, name, namespace string) []IngressRefusal {
	var out []IngressRefusal
	h := bareHost(host)
	if p.NoWildcardHosts && strings.Contains(h, "*") {
		out = append(out, IngressRefusal{Option: KeyIngressAllowWildcardHosts, Message: fmt.Sprintf(
			"host %q is a wildcard, which %s=false does not allow", host, KeyIngressAllowWildcardHosts)})
	}
	if p.AllowedHosts != "" && !p.hostAllowed(h, name, namespace) {
		what := fmt.Sprintf("host %q is", host)
		if h == "" {
			what = "an Ingress without a host (it answers for every host) is"
		}
		out = append(out, IngressRefusal{Option: KeyIngressAllowedHosts, Message: fmt.Sprintf(
			"%s not allowed by %s (allowed: %s)", what, KeyIngressAllowedHosts, strings.Join(commaList(p.AllowedHosts), ", "))})
	}
	return out
}

// annotationRefusals is the refusal of the annotations p does not allow, if there are any.
func (p IngressPolicy) annotationRefusals(annotations map[string]string) []IngressRefusal {
	if p.AllowedAnnotations == "" {
		return nil
	}
	var keys []string
	for _, k := range slices.Sorted(maps.Keys(annotations)) {
		if !p.annotationAllowed(k) {
			keys = append(keys, k)
		}
	}
	var what string
	switch {
	case len(keys) == 0:
		return nil
	case len(keys) == 1:
		what = fmt.Sprintf("annotation %q is", keys[0])
	case len(keys) > maxNamedAnnotations: // the message goes into status.error
		what = fmt.Sprintf("annotations %s and %d more are", quoted(keys[:maxNamedAnnotations]), len(keys)-maxNamedAnnotations)
	default:
		what = fmt.Sprintf("annotations %s are", quoted(keys))
	}
	return []IngressRefusal{{Option: KeyIngressAllowedAnnotations, Annotations: keys, Message: fmt.Sprintf(
		"%s not allowed by %s (allowed: %s)", what, KeyIngressAllowedAnnotations, strings.Join(commaList(p.AllowedAnnotations), ", "))}}
}

// maxNamedAnnotations is how many refused annotations a refusal's message names.
const maxNamedAnnotations = 5

// bareHost is host lower-case, without a scheme, a path, a port or a trailing dot.
func bareHost(host string) string {
	h := strings.ToLower(strings.TrimSpace(host))
	if _, rest, ok := strings.Cut(h, "://"); ok {
		h = rest
	}
	h, _, _ = strings.Cut(h, "/")
	h, _, _ = strings.Cut(h, ":")
	return strings.TrimSuffix(h, ".")
}

// hostAllowed reports whether h (a bare host) matches one of p's patterns for the resource.
// "*." matches exactly one DNS label (or "*", a wildcard host that covers just the names the
// pattern allows); an empty host matches none.
func (p IngressPolicy) hostAllowed(h, name, namespace string) bool {
	if h == "" {
		return false
	}
	expand := strings.NewReplacer("{{namespace}}", strings.ToLower(namespace), "{{name}}", strings.ToLower(name))
	for _, pattern := range commaList(p.AllowedHosts) {
		pattern = expand.Replace(pattern)
		rest, wildcard := strings.CutPrefix(pattern, "*.")
		if !wildcard {
			if h == pattern {
				return true
			}
			continue
		}
		label, tail, ok := strings.Cut(h, ".")
		if ok && tail == rest && (label == "*" || len(validation.IsDNS1123Label(label)) == 0) {
			return true
		}
	}
	return false
}

// annotationAllowed reports whether key is one of p's annotation keys or starts with one of
// its prefixes.
func (p IngressPolicy) annotationAllowed(key string) bool {
	for _, pattern := range commaList(p.AllowedAnnotations) {
		prefix, wildcard := strings.CutSuffix(pattern, "*")
		if key == pattern || (wildcard && strings.HasPrefix(key, prefix)) {
			return true
		}
	}
	return false
}

// quoted is keys quoted and joined by commas.
func quoted(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	return strings.Join(q, ", ")
}
