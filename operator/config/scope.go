package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Keys of the operator's scope, the Apache operator's.
const (
	KeyWatchedNamespaces = "kubernetes.operator.watched.namespaces"
	KeyLabelSelector     = "kubernetes.operator.label.selector"
	KeyDynamicNamespaces = "kubernetes.operator.dynamic.namespaces.enabled"
	// AllNamespaces is the Apache operator's value of KeyWatchedNamespaces for every namespace
	// (its default).
	AllNamespaces = "JOSDK_ALL_NAMESPACES"
)

// Scope is which resources the operator reconciles: those in its watched namespaces whose
// labels its label selector matches. The zero Scope admits every resource.
type Scope struct {
	// Namespaces are the watched namespaces, sorted (nil: all).
	Namespaces []string
	// Selector is the label selector in canonical form ("": every resource).
	Selector string
}

// ParseScope reads KeyWatchedNamespaces and KeyLabelSelector of the operator's flat options.
// A namespace that is not a DNS label, and a selector that does not parse, are errors.
func ParseScope(flat map[string]string) (Scope, error) {
	var s Scope
	if v := strings.TrimSpace(flat[KeyWatchedNamespaces]); v == "JOSDK_WATCH_CURRENT" {
		return Scope{}, fmt.Errorf("%s: JOSDK_WATCH_CURRENT is not read here: name the operator's namespace", KeyWatchedNamespaces)
	} else if v != "" && v != AllNamespaces {
		for _, ns := range strings.Split(v, ",") {
			ns = strings.TrimSpace(ns)
			if ns == "" {
				continue
			}
			if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
				return Scope{}, fmt.Errorf("%s: %q is not a namespace name: %s", KeyWatchedNamespaces, ns, strings.Join(errs, "; "))
			}
			s.Namespaces = append(s.Namespaces, ns)
		}
		slices.Sort(s.Namespaces)
		s.Namespaces = slices.Compact(s.Namespaces)
	}
	if v := strings.TrimSpace(flat[KeyLabelSelector]); v != "" {
		sel, err := labels.Parse(v)
		if err != nil {
			return Scope{}, fmt.Errorf("%s: %w", KeyLabelSelector, err)
		}
		s.Selector = sel.String()
	}
	return s, nil
}

// DynamicNamespaces reads KeyDynamicNamespaces (default false, as the Apache operator's):
// whether a change of KeyWatchedNamespaces applies while the operator runs.
func DynamicNamespaces(flat map[string]string) (bool, error) {
	v, ok := flat[KeyDynamicNamespaces]
	if !ok {
		return false, nil
	}
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		return false, fmt.Errorf("%s: %q is not true or false", KeyDynamicNamespaces, v)
	}
	return b, nil
}

// Watches reports whether namespace is one of the watched namespaces.
func (s Scope) Watches(namespace string) bool {
	_, found := slices.BinarySearch(s.Namespaces, namespace)
	return s.Namespaces == nil || found
}

// Admits reports whether the operator reconciles a resource in namespace with these labels.
func (s Scope) Admits(namespace string, lbls map[string]string) bool {
	if !s.Watches(namespace) {
		return false
	}
	if s.Selector == "" {
		return true
	}
	sel, err := labels.Parse(s.Selector) // canonical: it parsed before
	return err == nil && sel.Matches(labels.Set(lbls))
}

// Equal reports whether s and o admit the same resources.
func (s Scope) Equal(o Scope) bool {
	return slices.Equal(s.Namespaces, o.Namespaces) && s.Selector == o.Selector
}

// String is the scope as a log says it.
func (s Scope) String() string {
	ns := AllNamespaces
	if s.Namespaces != nil {
		ns = strings.Join(s.Namespaces, ",")
	}
	return fmt.Sprintf("namespaces=%s selector=%q", ns, s.Selector)
}
