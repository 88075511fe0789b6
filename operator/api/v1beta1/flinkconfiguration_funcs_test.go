package v1beta1

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
	"sigs.k8s.io/yaml"
)

func TestFlatten(t *testing.T) {
	cases := map[string]struct {
		// yaml is the flinkConfiguration as a user writes it.
		yaml    string
		want    map[string]string
		wantErr string
	}{
		"flat keys with string values stay as written": {
			yaml: `{"state.savepoints.dir": "s3://b/sp", "taskmanager.numberOfTaskSlots": "2"}`,
			want: map[string]string{"state.savepoints.dir": "s3://b/sp", "taskmanager.numberOfTaskSlots": "2"},
		},
		"numbers and booleans become Flink strings with their literal text": {
			yaml: "taskmanager.numberOfTaskSlots: 2\nexecution.checkpointing.unaligned: true\nfraction: 0.25\nbig: 12345678901234567890",
			want: map[string]string{
				"taskmanager.numberOfTaskSlots": "2", "execution.checkpointing.unaligned": "true",
				"fraction": "0.25", "big": "12345678901234567890",
			},
		},
		"nested objects join keys with dots": {
			yaml: "high-availability:\n  type: kubernetes\n  storageDir: file:///ha\nstate:\n  savepoints.dir: file:///sp",
			want: map[string]string{
				"high-availability.type": "kubernetes", "high-availability.storageDir": "file:///ha",
				"state.savepoints.dir": "file:///sp",
			},
		},
		"deeply nested objects mixed with flat keys": {
			yaml: "job:\n  autoscaler:\n    enabled: true\n    metrics.window: 5m\nkubernetes.operator.periodic.savepoint.interval: 1h",
			want: map[string]string{
				"job.autoscaler.enabled": "true", "job.autoscaler.metrics.window": "5m",
				"kubernetes.operator.periodic.savepoint.interval": "1h",
			},
		},
		"a list of scalars becomes a semicolon list": {
			yaml: "env.java.opts.all: [-Xss2m, -verbose]\nports: [1, 2]",
			want: map[string]string{"env.java.opts.all": "-Xss2m;-verbose", "ports": "1;2"},
		},
		"null means not set": {
			yaml: "a: null\nb:\n  c: null\n  d: x",
			want: map[string]string{"b.d": "x"},
		},
		"an empty configuration flattens to nothing": {
			yaml: "{}",
			want: map[string]string{},
		},
		"the same key spelled flat and nested is an error": {
			yaml:    "state.savepoints.dir: a\nstate:\n  savepoints.dir: b",
			wantErr: `key "state.savepoints.dir" is set twice`,
		},
		"a list holding an object is an error": {
			yaml:    "a: [{b: c}]",
			wantErr: `key "a": list item 0 is not a scalar`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var c FlinkConfiguration
			if err := yaml.Unmarshal([]byte(tc.yaml), &c); err != nil {
				t.Fatalf("unmarshal: %v", err)
			}
			got, err := c.Flatten()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Flatten() error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Flatten() unexpected error: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Flatten() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFlinkConfigurationSetGet(t *testing.T) {
	c := NewFlinkConfiguration(map[string]string{"a.b": "1"})
	c.Set("c", "two words")
	if v, ok := c.Get("a.b"); !ok || v != "1" {
		t.Errorf(`Get("a.b") = %q, %v; want "1", true`, v, ok)
	}
	if v, ok := c.Get("c"); !ok || v != "two words" {
		t.Errorf(`Get("c") = %q, %v; want "two words", true`, v, ok)
	}
	if _, ok := c.Get("missing"); ok {
		t.Error(`Get("missing") reported a value`)
	}
}

// The plain-string shortcut of decodeConfigValue reads every value as the JSON decoder does:
// any bytes between quotes (escapes, quotes, control characters and invalid UTF-8 included),
// and any string as json.Marshal writes it.
func TestDecodeConfigValueShortcut(t *testing.T) {
	slow := func(raw []byte) (any, error) {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		err := dec.Decode(&v)
		return v, err
	}
	rapid.Check(t, func(t *rapid.T) {
		raw := append(append([]byte{'"'}, rapid.SliceOf(rapid.Byte()).Draw(t, "inner")...), '"')
		if rapid.Bool().Draw(t, "marshalled") {
			raw, _ = json.Marshal(rapid.String().Draw(t, "s"))
		}
		got, err := decodeConfigValue(raw)
		want, wantErr := slow(raw)
		if (err != nil) != (wantErr != nil) || (err == nil && got != want) {
			t.Fatalf("decodeConfigValue(%q) = %#v, %v; the decoder reads %#v, %v", raw, got, err, want, wantErr)
		}
	})
}
