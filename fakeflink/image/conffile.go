package image

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// Version is a Flink minor version.
type Version struct{ Major, Minor int }

// ParseVersion reads "1.18", "1.18.1", "v1_18" or an image reference ending in such a tag
// ("flink:1.18-java11", "registry/flink:1.20.1-scala_2.12").
func ParseVersion(s string) (Version, bool) {
	if i := strings.LastIndexAny(s, ":/"); i >= 0 {
		s = s[i+1:]
	}
	s = strings.ReplaceAll(strings.TrimPrefix(s, "v"), "_", ".")
	parts := strings.SplitN(s, ".", 3)
	if len(parts) < 2 {
		return Version{}, false
	}
	major, err1 := strconv.Atoi(parts[0])
	minorDigits := parts[1]
	for i, r := range minorDigits {
		if r < '0' || r > '9' {
			minorDigits = minorDigits[:i]
			break
		}
	}
	minor, err2 := strconv.Atoi(minorDigits)
	if err1 != nil || err2 != nil {
		return Version{}, false
	}
	return Version{major, minor}, true
}

// AtLeast reports whether v is major.minor or newer.
func (v Version) AtLeast(major, minor int) bool {
	return v.Major > major || (v.Major == major && v.Minor >= minor)
}

// Config file names.
const (
	// LegacyConfigFile is read by Flink before 1.19 (and by 1.19 and 1.20 when config.yaml
	// is absent).
	LegacyConfigFile = "flink-conf.yaml"
	// YAMLConfigFile is read from Flink 1.19 on; Flink 2 reads nothing else.
	YAMLConfigFile = "config.yaml"
)

// ReadConfig reads the configuration a Flink version finds in its conf directory: its file
// name, the flattened keys, and the warnings Flink logs while reading. A file that does not
// parse fails the process as Flink's YAML parser does.
func ReadConfig(v Version, files map[string]string) (name string, conf map[string]string, warnings []string, err error) {
	yamlData, hasYAML := files[YAMLConfigFile]
	legacyData, hasLegacy := files[LegacyConfigFile]
	switch {
	case v.AtLeast(1, 19) && hasYAML:
		conf, err = ParseYAMLConfig(yamlData)
		return YAMLConfigFile, conf, nil, err
	case !v.AtLeast(2, 0) && hasLegacy:
		conf, warnings = ParseLegacyConfig(legacyData)
		if v.AtLeast(1, 19) {
			warnings = append([]string{"Configuration file flink-conf.yaml is deprecated: use config.yaml"}, warnings...)
		}
		return LegacyConfigFile, conf, warnings, nil
	case v.AtLeast(1, 19):
		return YAMLConfigFile, map[string]string{}, nil, nil
	}
	return LegacyConfigFile, map[string]string{}, nil, nil
}

// ParseLegacyConfig reads flink-conf.yaml the way Flink's GlobalConfiguration reads it before
// 1.19: line by line, everything from the first '#' is a comment, the line splits at its
// first ": " into a key and a value, both trimmed, and a line without ": " or with an empty
// key or value is skipped with a warning. It is not YAML: quotes stay part of the value, and
// a value spanning lines is cut at the line end.
func ParseLegacyConfig(data string) (map[string]string, []string) {
	conf := map[string]string{}
	var warnings []string
	for n, line := range strings.Split(data, "\n") {
		kv := strings.TrimSpace(strings.SplitN(line, "#", 2)[0])
		if kv == "" {
			continue
		}
		key, value, ok := strings.Cut(kv, ": ")
		if !ok {
			warnings = append(warnings, fmt.Sprintf("Error while trying to split key and value in configuration file %s:%d: Line is not a key-value pair (missing space after ':'?)", LegacyConfigFile, n+1))
			continue
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if key == "" || value == "" {
			warnings = append(warnings, fmt.Sprintf("Error after splitting key and value in configuration file %s:%d: Key or value was empty", LegacyConfigFile, n+1))
			continue
		}
		conf[key] = value
	}
	return conf, warnings
}

// ParseYAMLConfig reads config.yaml as standard YAML; nested maps flatten into dotted keys
// and scalars and lists become Flink's string forms.
func ParseYAMLConfig(data string) (map[string]string, error) {
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(data), &doc); err != nil {
		return nil, fmt.Errorf("org.yaml.snakeyaml.error.YAMLException: %w", err)
	}
	out := map[string]string{}
	flatten("", doc, out)
	return out, nil
}

func flatten(prefix string, v any, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, sub := range x {
			if prefix != "" {
				k = prefix + "." + k
			}
			flatten(k, sub, out)
		}
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			parts = append(parts, fmt.Sprint(e))
		}
		out[prefix] = strings.Join(parts, ";")
	case nil:
	case float64:
		out[prefix] = strconv.FormatFloat(x, 'f', -1, 64)
	default:
		out[prefix] = fmt.Sprint(x)
	}
}

// WithDynamic returns conf with the -D key=value properties of args applied.
func WithDynamic(conf map[string]string, dynamic map[string]string) map[string]string {
	out := maps.Clone(conf)
	maps.Copy(out, dynamic)
	return out
}
