package config

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// VersionPrefix starts a key that holds for resources of some Flink versions only (the Apache
// operator's): VersionPrefix + "v1_20." + key for v1_20, VersionPrefix + "v1_18+." + key for
// v1_18 and every later version.
const VersionPrefix = "kubernetes.operator.default-configuration.flink-version."

// versionKey matches a key under VersionPrefix: the major and minor version, whether it holds
// for later versions too (+), and the key it sets.
var versionKey = regexp.MustCompile(`^` + regexp.QuoteMeta(VersionPrefix) + `v(\d+)_(\d+)(\+)?\.(.+)$`)

// flinkDefault reports whether key, found in the operator's options, is a default of the
// resources' Flink configuration (as the Apache operator hands its whole configuration to
// each deployment): Flink's options and the autoscaler's, not the operator's own, but for
// the ones the renderer reads from the resource's configuration (KeyPodTemplateMergeByName,
// KeyJMStartupProbe).
func flinkDefault(key string) bool {
	if rest, ok := strings.CutPrefix(key, OperatorPrefix); ok {
		return strings.HasPrefix(rest, AutoscalerPrefix) || key == KeyPodTemplateMergeByName || key == KeyJMStartupProbe
	}
	return true
}

// FlinkDefaults are the Flink options the operator's file gives a resource in namespace
// running flinkVersion (e.g. v1_20): every key of the file outside kubernetes.operator.*
// (autoscaler keys under it included), then the namespace's keys (NamespacePrefix), then each
// version's (VersionPrefix) in ascending order, "+" versions up to flinkVersion before
// flinkVersion's own, each overriding the ones before, as the Apache operator orders them.
// A resource's own flinkConfiguration overrides all of them (see
// v1beta1.FlinkDeploymentSpec.Conf). The map is shared: read it, do not change it.
func (l *Live) FlinkDefaults(namespace, flinkVersion string) map[string]string {
	st := l.p.Load()
	if st.scoped == nil {
		return st.flinkDefaults
	}
	if !st.scoped.namespaces[namespace] {
		namespace = "" // the file has no keys of its own for it
	}
	key := [2]string{namespace, flinkVersion}
	if m, ok := st.scoped.cache.Load(key); ok {
		return m.(map[string]string)
	}
	m, _ := st.scoped.cache.LoadOrStore(key, st.flinkDefaultsFor(namespace, flinkVersion))
	return m.(map[string]string)
}

// scopedDefaults are the namespaces a file has Flink defaults for, and the defaults computed
// so far by namespace (or "") and Flink version: at most one map per namespace the file
// names and version.
type scopedDefaults struct {
	namespaces map[string]bool
	cache      sync.Map // [2]string{namespace, version} → map[string]string
}

// flinkDefaultsFor computes FlinkDefaults.
func (st *liveState) flinkDefaultsFor(namespace, flinkVersion string) map[string]string {
	out := map[string]string{}
	for k, v := range st.flinkDefaults {
		out[k] = v
	}
	prefix := NamespacePrefix + namespace + "."
	for k, v := range st.flat {
		if rest, ok := strings.CutPrefix(k, prefix); ok && flinkDefault(rest) {
			out[rest] = v
		}
	}
	major, minor, ok := parseVersion(flinkVersion)
	if !ok {
		return out
	}
	type versioned struct {
		major, minor int
		exact        bool
		key, value   string
	}
	var keys []versioned
	for k, v := range st.flat {
		m := versionKey.FindStringSubmatch(k)
		if m == nil || !flinkDefault(m[4]) {
			continue
		}
		kMajor, _ := strconv.Atoi(m[1])
		kMinor, _ := strconv.Atoi(m[2])
		switch {
		case m[3] == "" && kMajor == major && kMinor == minor:
			keys = append(keys, versioned{kMajor, kMinor, true, m[4], v})
		case m[3] == "+" && (kMajor < major || kMajor == major && kMinor <= minor):
			keys = append(keys, versioned{kMajor, kMinor, false, m[4], v})
		}
	}
	slices.SortFunc(keys, func(a, b versioned) int {
		switch {
		case a.exact && !b.exact:
			return 1 // the version's own keys last
		case !a.exact && b.exact:
			return -1
		}
		return cmp.Or(cmp.Compare(a.major, b.major), cmp.Compare(a.minor, b.minor))
	})
	for _, k := range keys {
		out[k.key] = k.value
	}
	return out
}

// parseVersion reads a spec.flinkVersion (v<major>_<minor>).
func parseVersion(v string) (major, minor int, ok bool) {
	a, b, found := strings.Cut(strings.TrimPrefix(v, "v"), "_")
	if !found || !strings.HasPrefix(v, "v") {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(a)
	minor, err2 := strconv.Atoi(b)
	return major, minor, err1 == nil && err2 == nil
}

// flinkDefaultsOf splits a file's keys: the operator-wide Flink defaults, and the scoped ones
// (nil when no key scopes a default to a namespace or a Flink version).
func flinkDefaultsOf(flat map[string]string) (map[string]string, *scopedDefaults) {
	out := map[string]string{}
	var sc *scopedDefaults
	for k, v := range flat {
		switch {
		case strings.HasPrefix(k, NamespacePrefix), strings.HasPrefix(k, VersionPrefix):
			scope, inner := scoped(k)
			if !flinkDefault(inner) {
				continue
			}
			if sc == nil {
				sc = &scopedDefaults{namespaces: map[string]bool{}}
			}
			if ns, ok := strings.CutPrefix(scope, NamespacePrefix); ok {
				sc.namespaces[strings.TrimSuffix(ns, ".")] = true
			}
		case flinkDefault(k):
			out[k] = v
		}
	}
	return out, sc
}
