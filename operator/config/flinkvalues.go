package config

import (
	"fmt"
	"strings"
)

// Flink's structured option values, as its configuration parses them (ConfigurationUtils and
// StructuredOptionsSplitter): a map is "k1:v1,k2:v2", a list of maps separates the maps with
// ";". A part may be quoted with ' or " (a doubled quote inside stands for one) to hold a
// delimiter; spaces around keys and values are dropped.

// SplitEscaped splits s at delim outside quotes, unquoting the quoted parts.
func SplitEscaped(s string, delim byte) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []string
	var cur strings.Builder
	for i := 0; i < len(s); {
		switch c := s[i]; c {
		case '\'', '"':
			end, err := unquote(s, i, &cur)
			if err != nil {
				return nil, err
			}
			i = end
		case delim:
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
			i++
		default:
			cur.WriteByte(c)
			i++
		}
	}
	return append(out, strings.TrimSpace(cur.String())), nil
}

// unquote writes the quoted part of s starting at the quote s[start] into b, and returns
// where it ends.
func unquote(s string, start int, b *strings.Builder) (int, error) {
	q := s[start]
	for i := start + 1; i < len(s); i++ {
		if s[i] != q {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == q {
			b.WriteByte(q)
			i++
			continue
		}
		return i + 1, nil
	}
	return 0, fmt.Errorf("%q: a quote (%c) is not closed", s, q)
}

// ParseFlinkMap parses Flink's map value "k1:v1,k2:v2".
func ParseFlinkMap(s string) (map[string]string, error) {
	entries, err := flinkMapEntries(s)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, kv := range entries {
		out[kv[0]] = kv[1]
	}
	return out, nil
}

// flinkMapEntries parses Flink's map value "k1:v1,k2:v2" into its key-value pairs, in order.
func flinkMapEntries(s string) ([][2]string, error) {
	entries, err := SplitEscaped(s, ',')
	if err != nil {
		return nil, err
	}
	var out [][2]string
	for _, e := range entries {
		if e == "" {
			continue // "a:b," as Flink reads it
		}
		kv, err := SplitEscaped(e, ':')
		if err != nil {
			return nil, err
		}
		if len(kv) != 2 || kv[0] == "" {
			return nil, fmt.Errorf("%q is not key:value", e)
		}
		out = append(out, [2]string{kv[0], kv[1]})
	}
	return out, nil
}

// ParseFlinkMapList parses Flink's list of maps "k:v,k2:v2;k:v3".
func ParseFlinkMapList(s string) ([]map[string]string, error) {
	parts, err := SplitEscaped(s, ';')
	if err != nil {
		return nil, err
	}
	var out []map[string]string
	for _, p := range parts {
		if p == "" {
			continue
		}
		m, err := ParseFlinkMap(p)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}
