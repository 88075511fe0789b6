package act

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v2"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// ConfigFile renders conf as the named configuration file. config.yaml (Flink 1.19 on) is
// standard YAML: one top-level "key: value" per option, keys in byte order, each value a YAML
// string. flink-conf.yaml is read by Flink line by line, not as YAML: each line is
// "key: value" as is (quotes would stay part of the value), so a key or value that the line
// format cannot carry is an error (validation refuses such specs before they get here).
func ConfigFile(name string, conf map[string]string) (string, error) {
	keys := slices.Sorted(maps.Keys(conf))
	if name != "flink-conf.yaml" {
		return yamlConfigFile(keys, conf)
	}
	var b strings.Builder
	for _, k := range keys {
		if why := flinkv1beta1.LegacyConfigProblem(k, conf[k]); why != "" {
			return "", fmt.Errorf("flink-conf.yaml cannot hold %q: %s", k, why)
		}
		fmt.Fprintf(&b, "%s: %s\n", k, conf[k])
	}
	return b.String(), nil
}

// yamlConfigFile encodes conf as one YAML mapping in the order of keys. It is encoded once,
// straight from the strings: each reconcile that deploys renders it, and a JSON round trip per
// key took a third of the operator's CPU while 10,000 deployments converged. Strings that are
// not UTF-8 are written as the API server would have stored them (invalid bytes replaced), so
// nothing reaches the encoder that it would write as binary.
func yamlConfigFile(keys []string, conf map[string]string) (string, error) {
	doc := make(yaml.MapSlice, 0, len(keys))
	for _, k := range keys {
		doc = append(doc, yaml.MapItem{Key: strings.ToValidUTF8(k, "\uFFFD"), Value: strings.ToValidUTF8(conf[k], "\uFFFD")})
	}
	if len(doc) == 0 {
		return "", nil
	}
	out, err := yaml.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("config.yaml: %w", err)
	}
	return string(out), nil
}

// resourceConfig sets the memory and CPU options from the roles' resource fields, as the
// Apache operator does: the requested memory is the process size (see resolveResources). The
// ConfigMap replaces the image's configuration file, so without any size Flink would refuse to
// start: the image's default sizes are written then.
func resourceConfig(spec flinkv1beta1.FlinkDeploymentSpec, conf map[string]string) {
	roles := []struct {
		name string
		res  roleResources
	}{{name: "jobmanager"}, {name: "taskmanager"}}
	if jm := spec.JobManager; jm != nil {
		roles[0].res = resolveResources(jm.Resource, jm.Resources)
	}
	if tm := spec.TaskManager; tm != nil {
		roles[1].res = resolveResources(tm.Resource, tm.Resources)
	}
	for _, r := range roles {
		if !memoryConfigured(r.name, conf) {
			// The image's own configuration file, which the ConfigMap hides, sets these.
			conf[r.name+".memory.process.size"] = imageDefaultMemory[r.name]
		}
		setResourceConfig(r.name, r.res, conf)
	}
}

// flinkMemorySize is a memory shorthand in a form Flink's MemorySize reads: Flink's own
// forms ("2048m", "2g") as they are, Kubernetes quantities ("2Gi") in bytes.
func flinkMemorySize(s string) string {
	if s == "" {
		return ""
	}
	if flinkv1beta1.IsFlinkMemorySize(s) {
		return strings.TrimSpace(s)
	}
	q, err := flinkv1beta1.ParseFlinkMemory(s)
	if err != nil {
		return ""
	}
	return strconv.FormatInt(q.Value(), 10) + "b"
}

// imageDefaultMemory are the process sizes of the official image's default configuration
// file, written when neither resource.memory nor a memory option sets one.
var imageDefaultMemory = map[string]string{"jobmanager": "1600m", "taskmanager": "1728m"}

// memoryConfigured reports whether conf sizes the role's memory itself: a process or Flink
// memory size, or the fine-grained heap size(s) Flink accepts instead.
func memoryConfigured(role string, conf map[string]string) bool {
	keys := []string{role + ".memory.process.size", role + ".memory.flink.size", "jobmanager.memory.heap.size"}
	if role == "taskmanager" {
		keys[2] = "taskmanager.memory.task.heap.size"
	}
	for _, k := range keys {
		if _, ok := conf[k]; ok {
			return true
		}
	}
	return false
}
