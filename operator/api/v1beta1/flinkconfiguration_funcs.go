package v1beta1

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// NewFlinkConfiguration builds a flat FlinkConfiguration from string key/value pairs.
func NewFlinkConfiguration(kv map[string]string) FlinkConfiguration {
	c := make(FlinkConfiguration, len(kv))
	for k, v := range kv {
		c.Set(k, v)
	}
	return c
}

// Set stores a flat key with a string value, replacing a flat key of the same name.
func (c FlinkConfiguration) Set(key, value string) {
	raw, _ := json.Marshal(value) // a string always marshals
	c[key] = apiextensionsv1.JSON{Raw: raw}
}

// Get returns the flattened value of key and whether it is set. A configuration that does not
// flatten (see Flatten) has no values.
func (c FlinkConfiguration) Get(key string) (string, bool) {
	flat, err := c.Flatten()
	if err != nil {
		return "", false
	}
	v, ok := flat[key]
	return v, ok
}

// Flatten turns the configuration into the flat "a.b.c" → "value" form Flink reads.
//
// Nested objects join their keys with dots; strings are kept as written, numbers keep their
// literal text and booleans become "true"/"false"; a list of scalars becomes Flink's
// semicolon-separated list; null means "not set" and is left out. It fails when two spellings
// name the same key (for example "state.savepoints.dir" and state: {savepoints.dir: …}), and
// on lists that hold objects, which Flink's flat configuration cannot express.
func (c FlinkConfiguration) Flatten() (map[string]string, error) {
	out := map[string]string{}
	origin := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(c)) {
		v, err := decodeConfigValue(c[k].Raw)
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", k, err)
		}
		if err := flattenInto(out, origin, k, k, v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// decodeConfigValue decodes a configuration value's JSON (numbers as json.Number). A plain
// string, the common case, is read directly, as the decoder would read it: every value of
// every deployment is decoded on every reconcile.
func decodeConfigValue(raw []byte) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	if s, ok := plainJSONString(raw); ok {
		return s, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	return v, nil
}

// plainJSONString reads raw as a JSON string that needs no decoding: quoted, valid UTF-8,
// without escapes, quotes or control characters inside.
func plainJSONString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	for _, b := range inner {
		if b < 0x20 || b == '"' || b == '\\' {
			return "", false
		}
	}
	if !utf8.Valid(inner) {
		return "", false
	}
	return string(inner), true
}

// flattenInto adds value under key to out; written is how the user spelled the key, for errors.
func flattenInto(out, origin map[string]string, key, written string, value any) error {
	switch v := value.(type) {
	case nil:
		return nil
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if err := flattenInto(out, origin, key+"."+k, written+" > "+k, v[k]); err != nil {
				return err
			}
		}
		return nil
	}
	s, err := scalarOrList(value)
	if err != nil {
		return fmt.Errorf("key %q: %w", written, err)
	}
	if prev, dup := origin[key]; dup {
		return fmt.Errorf("key %q is set twice, as %q and as %q", key, prev, written)
	}
	origin[key] = written
	out[key] = s
	return nil
}

func scalarOrList(value any) (string, error) {
	switch v := value.(type) {
	case string:
		return v, nil
	case json.Number:
		return v.String(), nil
	case bool:
		if v {
			return "true", nil
		}
		return "false", nil
	case []any:
		parts := make([]string, 0, len(v))
		for i, item := range v {
			switch item.(type) {
			case map[string]any, []any:
				return "", fmt.Errorf("list item %d is not a scalar; Flink lists hold scalars only", i)
			}
			s, err := scalarOrList(item)
			if err != nil {
				return "", err
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, ";"), nil
	}
	return "", fmt.Errorf("unsupported value type %T", value)
}
