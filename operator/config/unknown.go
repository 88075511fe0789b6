package config

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
)

// Prefixes of the options in the catalogue.
const (
	OperatorPrefix   = "kubernetes.operator."
	AutoscalerPrefix = "job.autoscaler."
)

// maxTypoDistance is how many edits a key may be from an option for Check to suggest it.
const maxTypoDistance = 3

// patterns are the catalogue's options with a <name> segment, as expressions matching a key.
var patterns = func() map[string]*regexp.Regexp {
	out := map[string]*regexp.Regexp{}
	for _, list := range [][]Option{OperatorOptions, AutoscalerOptions} {
		for _, o := range list {
			if strings.Contains(o.Key, "<") {
				parts := regexp.MustCompile(`<[^>]+>`).Split(o.Key, -1)
				for i := range parts {
					parts[i] = regexp.QuoteMeta(parts[i])
				}
				out[o.Key] = regexp.MustCompile("^" + strings.Join(parts, "[^ ]+") + "$")
			}
		}
	}
	return out
}()

// Lookup finds the catalogue's option a key names: under OperatorPrefix in OperatorOptions,
// under AutoscalerPrefix (or OperatorPrefix+AutoscalerPrefix) in AutoscalerOptions, with the
// key the option is listed under. It reports false for a key the catalogue does not know,
// also for one outside both prefixes.
func Lookup(key string) (Option, bool) {
	list, name := OperatorOptions, key
	if rest, ok := strings.CutPrefix(strings.TrimPrefix(key, OperatorPrefix), AutoscalerPrefix); ok {
		list, name = AutoscalerOptions, rest
	} else if !strings.HasPrefix(key, OperatorPrefix) {
		return Option{}, false
	}
	if i, ok := slices.BinarySearchFunc(list, name, func(o Option, k string) int { return strings.Compare(o.Key, k) }); ok {
		return list[i], true
	}
	for _, o := range list {
		if re := patterns[o.Key]; re != nil && re.MatchString(name) {
			return o, true
		}
	}
	return Option{}, false
}

// Check returns a warning for each key of conf (a flattened configuration) under
// OperatorPrefix or AutoscalerPrefix that no operator reads: one the catalogue does not know
// (a typo, most likely: the nearest option is suggested when it is near), or a deprecated
// name this operator does not read. A namespace's key (NamespacePrefix) is checked for the
// option it sets. Sorted by key; other keys are Flink's, not checked.
func Check(conf map[string]string) []string {
	var out []string
	for _, key := range slices.Sorted(maps.Keys(conf)) {
		scope, name := scoped(key)
		if !strings.HasPrefix(name, OperatorPrefix) && !strings.HasPrefix(name, AutoscalerPrefix) {
			continue
		}
		o, ok := Lookup(name)
		switch {
		case !ok:
			msg := key + " is not an option of the Flink operator"
			if near := nearest(name); near != "" {
				msg += fmt.Sprintf(" (did you mean %s%s?)", scope, near)
			}
			out = append(out, msg+"; it has no effect")
		case o.Support == Deprecated:
			out = append(out, fmt.Sprintf("%s is an older name of %s%s; this operator reads only the current name, so it has no effect", key, scope, o.Note))
		case o.Support == NotApplicable:
			out = append(out, fmt.Sprintf("%s is not applicable here (%s); it has no effect", key, o.Note))
		}
	}
	return out
}

// scoped splits a namespace's key (NamespacePrefix + "<namespace>." + option) or a Flink
// version's (VersionPrefix + "<version>." + option) into its scope and the option it sets;
// any other key is its own option, with no scope.
func scoped(key string) (scope, name string) {
	for _, prefix := range []string{NamespacePrefix, VersionPrefix} {
		if rest, ok := strings.CutPrefix(key, prefix); ok {
			if s, inner, ok := strings.Cut(rest, "."); ok {
				return prefix + s + ".", inner
			}
		}
	}
	return "", key
}

// nearest is the concrete option (no <name> segment) within maxTypoDistance edits of key,
// the nearest one; "" when none is.
func nearest(key string) string {
	best, bestDist := "", maxTypoDistance+1
	try := func(candidate string) {
		if d := levenshtein.ComputeDistance(key, candidate); d < bestDist {
			best, bestDist = candidate, d
		}
	}
	for _, o := range OperatorOptions {
		if patterns[o.Key] == nil && o.Support != Deprecated {
			try(o.Key)
		}
	}
	prefix := AutoscalerPrefix
	if strings.HasPrefix(key, OperatorPrefix) {
		prefix = OperatorPrefix + AutoscalerPrefix
	}
	for _, o := range AutoscalerOptions {
		if patterns[o.Key] == nil {
			try(prefix + o.Key)
		}
	}
	return best
}
