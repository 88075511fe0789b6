package act

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
	"sigs.k8s.io/yaml"
)

// perKeyConfigFile is how config.yaml was rendered before: each option marshalled on its own
// through a JSON round trip. The rendered file must not change with the encoder, or every
// deployment's ConfigMap would be rewritten when the operator is upgraded. The one exception:
// the round trip folded a NEL (U+0085) in a value to a space; the file now keeps it.
func perKeyConfigFile(conf map[string]string) (string, error) {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(conf)) {
		line, err := yaml.Marshal(map[string]string{k: conf[k]})
		if err != nil {
			return "", err
		}
		b.Write(line)
	}
	return b.String(), nil
}

// configText draws option keys and values as tenants write them and as an attacker might:
// YAML indicators, booleans and numbers as strings, line breaks, quotes, non-ASCII text.
func configText() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.SampledFrom([]string{
			"", "true", "yes", "off", "~", "null", "1", "0x1F", "1e3", "-1.5", ".inf", "2048m",
			"a: b", "- x", "#c", "key: [1, 2]", "{a: 1}", "'q'", `"q"`, "&a", "*a", "!!binary", "|", ">",
			"multi\nline", "trailing\n", " lead", "tail ", "tab\there", "é ü 中文", "\u2028", "\u0085",
			"s3://bucket/path?x=1&y=2", "org.apache.flink.Foo", "-Xmx1g -XX:+UseG1GC",
		}),
		rapid.String(),
		rapid.StringMatching(`[a-z.\-: #'"\\\n]{0,40}`),
	)
}

// TestYAMLConfigFile checks config.yaml both ways: read back as YAML it is the configuration
// (every option's key and value as written, once UTF-8), and it is the file the per-key
// encoder wrote wherever that encoder kept the values.
func TestYAMLConfigFile(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		conf := rapid.MapOf(configText(), configText()).Draw(t, "conf")
		got, err := ConfigFile("config.yaml", conf)
		if err != nil {
			t.Fatalf("ConfigFile: %v", err)
		}
		read := map[string]string{}
		if err := yaml.Unmarshal([]byte(got), &read); err != nil {
			t.Fatalf("config.yaml does not parse: %v\n%s", err, got)
		}
		utf := map[string]string{}
		for k, v := range conf {
			utf[strings.ToValidUTF8(k, "\uFFFD")] = strings.ToValidUTF8(v, "\uFFFD")
		}
		if diff := cmp.Diff(utf, read, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("config.yaml read back (-written +read):\n%s\n%s", diff, got)
		}
		want, err := perKeyConfigFile(conf)
		if err != nil || strings.ContainsRune(got, '\u0085') || strings.Contains(got, `\N`) {
			return // the old encoder refused or changed this input
		}
		if got != want {
			t.Fatalf("config.yaml changed with the encoder:\n got %q\nwant %q", got, want)
		}
	})
}

func BenchmarkYAMLConfigFile(b *testing.B) {
	conf := map[string]string{}
	for i, k := range []string{
		"jobmanager.memory.process.size", "taskmanager.memory.process.size", "taskmanager.numberOfTaskSlots",
		"parallelism.default", "state.backend.type", "state.checkpoints.dir", "state.savepoints.dir",
		"execution.checkpointing.interval", "high-availability.type", "high-availability.storageDir",
		"kubernetes.cluster-id", "kubernetes.namespace", "rest.port", "blob.server.port",
		"jobmanager.rpc.address", "taskmanager.rpc.port", "metrics.reporters", "pipeline.name",
		"execution.savepoint.path", "kubernetes.jobmanager.cpu",
	} {
		conf[k] = []string{"2048m", "s3://bucket/checkpoints", "true", "4", "kubernetes"}[i%5]
	}
	b.Run("one mapping", func(b *testing.B) {
		for b.Loop() {
			if _, err := ConfigFile("config.yaml", conf); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("per key through JSON", func(b *testing.B) {
		for b.Loop() {
			if _, err := perKeyConfigFile(conf); err != nil {
				b.Fatal(err)
			}
		}
	})
}
