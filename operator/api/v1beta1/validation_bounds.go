package v1beta1

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Bounds on what a tenant may ask for. Each one keeps a single resource from making the
// operator, the API server or the cluster do unbounded work.
const (
	// MaxNameLength is the longest FlinkDeployment name (Flink's cluster-id limit; names
	// become Service names, label values and DNS labels with suffixes).
	MaxNameLength = 45
	// MaxParallelism is Flink's upper bound on (max) parallelism: 2^15 key groups.
	MaxParallelism = 1 << 15
	// MaxReplicas bounds JobManager and TaskManager replicas.
	MaxReplicas = MaxParallelism
	// MaxCPU bounds the CPU of one JobManager or TaskManager pod, in cores.
	MaxCPU = 1024
	// MaxSpecBytes bounds a spec's JSON: status keeps up to two copies of it (the reconciled
	// and the last stable spec), and the whole object must stay under the API server's
	// request limit (about 1.5 MiB).
	MaxSpecBytes = 256 << 10
)

// maxMemory is the largest memory of one pod (1 TiB).
var maxMemory = resource.MustParse("1Ti")

// nameRE is the FlinkDeployment name rule: a DNS label of at most MaxNameLength characters
// that starts with a letter.
var nameRE = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,43}[a-z0-9])?$`)

// pullPolicies are Kubernetes' image pull policies (the rendered Deployments would be refused
// with any other).
var pullPolicies = []string{"Always", "IfNotPresent", "Never"}

// LogConfigurationKeys are the only keys of spec.logConfiguration: the logging files of the
// Flink image (any other key could replace a rendered file, such as config.yaml).
var LogConfigurationKeys = []string{"log4j-console.properties", "logback-console.xml"}

// ErrInvalidJarURI is returned for a jar URI that is not a plain .jar path at a scheme.
var ErrInvalidJarURI = errors.New("invalid jar URI")

// ParseJarURI parses a jar URI and checks its form on the parsed value: a scheme, a path
// ending in .jar, and no user information, query or fragment (where ".jar" could be a decoy).
func ParseJarURI(uri string) (*url.URL, error) {
	u, err := url.Parse(uri)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: %w", ErrInvalidJarURI, err)
	case u.Scheme == "" || u.Opaque != "":
		return nil, fmt.Errorf("%w: %q is not scheme://path", ErrInvalidJarURI, u.Redacted())
	case u.User != nil:
		return nil, fmt.Errorf("%w: %q has credentials (user information)", ErrInvalidJarURI, u.Redacted())
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsAny(u.Path, "?#"):
		return nil, fmt.Errorf("%w: %q has a query or a fragment", ErrInvalidJarURI, u.Redacted())
	case !strings.HasSuffix(u.Path, ".jar") || strings.HasSuffix(u.Path, "/.jar"):
		return nil, fmt.Errorf("%w: %q does not name a .jar file", ErrInvalidJarURI, u.Redacted())
	}
	return u, nil
}

// ParseFlinkMemory reads a memory size as Flink writes it ("2048m" is 2048 MiB, "2g", "1gb",
// "512k") or as a Kubernetes quantity ("2Gi").
func ParseFlinkMemory(s string) (resource.Quantity, error) {
	for suffix, unit := range map[string]string{"m": "Mi", "mb": "Mi", "g": "Gi", "gb": "Gi", "k": "Ki", "kb": "Ki"} {
		if n, ok := cutNumberSuffix(s, suffix); ok {
			if q, err := resource.ParseQuantity(n + unit); err == nil {
				return q, nil
			}
		}
	}
	return resource.ParseQuantity(s)
}

// cutNumberSuffix returns s without a case-insensitive suffix when what remains is a plain
// decimal number.
func cutNumberSuffix(s, suffix string) (string, bool) {
	if len(s) <= len(suffix) || !strings.EqualFold(s[len(s)-len(suffix):], suffix) {
		return "", false
	}
	n := strings.TrimSpace(s[:len(s)-len(suffix)])
	for _, r := range n {
		if (r < '0' || r > '9') && r != '.' {
			return "", false
		}
	}
	return n, n != ""
}

// renderedSuffixes are the suffixes the operator adds to a FlinkDeployment's name for its
// objects (Service <name>-rest, Deployment <name>-taskmanager): a name ending in one could
// collide with another resource's object of the same kind, so no name ends in one.
var renderedSuffixes = []string{"-rest", "-taskmanager"}

func validateName(path *field.Path, name string) field.ErrorList {
	if !nameRE.MatchString(name) {
		return field.ErrorList{field.Invalid(path, name, fmt.Sprintf(
			"must be lower-case letters, digits and '-', start with a letter, end with a letter or digit, and have at most %d characters", MaxNameLength))}
	}
	for _, suffix := range renderedSuffixes {
		if strings.HasSuffix(name, suffix) {
			return field.ErrorList{field.Invalid(path, name, fmt.Sprintf(
				"must not end in %q: the operator names FlinkDeployment %s's objects that way, so the two would collide", suffix, strings.TrimSuffix(name, suffix)))}
		}
	}
	return nil
}

func validateResource(path *field.Path, r Resource) field.ErrorList {
	var errs field.ErrorList
	if r.CPU != nil {
		if c := *r.CPU; math.IsNaN(c) || c <= 0 || c > MaxCPU {
			errs = append(errs, field.Invalid(path.Child("cpu"), c, fmt.Sprintf("must be more than 0 and at most %d cores", MaxCPU)))
		}
	}
	if r.Memory != "" {
		q, err := ParseFlinkMemory(r.Memory)
		switch {
		case err != nil:
			errs = append(errs, field.Invalid(path.Child("memory"), r.Memory, "is not a memory size (e.g. 2048m, 2g or 2Gi)"))
		case q.Sign() <= 0 || q.Cmp(maxMemory) > 0:
			errs = append(errs, field.Invalid(path.Child("memory"), r.Memory, "must be more than 0 and at most 1Ti"))
		}
	}
	if r.EphemeralStorage != "" {
		if q, err := resource.ParseQuantity(r.EphemeralStorage); err != nil || q.Sign() <= 0 {
			errs = append(errs, field.Invalid(path.Child("ephemeralStorage"), r.EphemeralStorage, "is not a positive quantity (e.g. 10Gi)"))
		}
	}
	return errs
}

func validateRange(path *field.Path, v *int32, lo, hi int32) field.ErrorList {
	if v == nil || (*v >= lo && *v <= hi) {
		return nil
	}
	return field.ErrorList{field.Invalid(path, *v, fmt.Sprintf("must be between %d and %d", lo, hi))}
}

func validateLogConfiguration(path *field.Path, conf map[string]string) field.ErrorList {
	var errs field.ErrorList
	for k := range conf {
		if !slices.Contains(LogConfigurationKeys, k) {
			errs = append(errs, field.NotSupported(path.Key(k), k, LogConfigurationKeys))
		}
	}
	return errs
}

// validateSize refuses a spec whose JSON is larger than MaxSpecBytes.
func validateSize(path *field.Path, spec any) field.ErrorList {
	data, err := json.Marshal(spec)
	if err == nil && len(data) > MaxSpecBytes { // only NaN fails to marshal; the cpu rule reports it
		return field.ErrorList{field.TooLong(path, len(data), MaxSpecBytes)}
	}
	return nil
}

// IsFlinkMemorySize reports whether Flink's MemorySize reads s as it is: digits, optional
// whitespace and an optional unit (b, k, kb, m, mb, g, gb, t, tb and their long forms).
func IsFlinkMemorySize(s string) bool {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(s[i:])) {
	case "", "b", "bytes", "k", "kb", "kibibytes", "m", "mb", "mebibytes", "g", "gb", "gibibytes", "t", "tb", "tebibytes":
		return true
	}
	return false
}

// LegacyConfigProblem says why flink-conf.yaml (Flink before 1.19) cannot carry key: value,
// or "". Flink reads that file line by line: everything from a '#' is a comment, the line
// splits at its first ": ", key and value are trimmed and an empty one drops the line. So a
// line break, a '#', a ": " inside the key, an empty value or surrounding blanks would reach
// Flink as something else.
func LegacyConfigProblem(key, value string) string {
	switch {
	case strings.ContainsAny(key+value, "\r\n"):
		return "Flink before 1.19 reads flink-conf.yaml line by line: a line break would start a new key"
	case strings.Contains(key+value, "#"):
		return "Flink before 1.19 reads everything after '#' in flink-conf.yaml as a comment"
	case strings.Contains(key, ": ") || strings.HasSuffix(key, ":"):
		return "Flink before 1.19 splits each flink-conf.yaml line at its first \": \""
	case strings.TrimSpace(value) == "":
		return "Flink before 1.19 drops a flink-conf.yaml line whose value is empty"
	case strings.TrimSpace(key) != key || strings.TrimSpace(value) != value:
		return "Flink before 1.19 trims the blanks around keys and values in flink-conf.yaml"
	}
	return ""
}

// IsLegacyConfigFile reports whether Flink version v reads flink-conf.yaml (before 1.19)
// rather than config.yaml.
func IsLegacyConfigFile(v FlinkVersion) bool {
	switch v {
	case "v1_13", "v1_14", "v1_15", "v1_16", "v1_17", "v1_18":
		return true
	}
	return false
}
