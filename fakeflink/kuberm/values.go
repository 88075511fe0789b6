package kuberm

import (
	"fmt"
	"strings"
)

// tokens splits s at delim as Flink's StructuredOptionsSplitter#splitEscaped does: a part in
// single or double quotes keeps delimiters (a doubled quote stands for itself), the quotes are
// dropped, and each token is trimmed.
func tokens(s string, delim rune) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []string
	var cur strings.Builder
	var quote rune
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0 && r == quote && i+1 < len(rs) && rs[i+1] == quote:
			cur.WriteRune(r)
			i++
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote = r
		case r == delim:
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("could not split %q: a quote is not closed", s)
	}
	return append(out, strings.TrimSpace(cur.String())), nil
}

// parseMap reads a Flink map option ("k1:v1,k2:'v,2'"); an empty entry is skipped.
func parseMap(s string) (map[string]string, error) {
	entries, err := tokens(s, ',')
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, e := range entries {
		if e == "" {
			continue
		}
		kv, err := tokens(e, ':')
		if err != nil {
			return nil, err
		}
		if len(kv) != 2 || kv[0] == "" {
			return nil, fmt.Errorf("could not parse %q as a map entry (key:value)", e)
		}
		out[kv[0]] = kv[1]
	}
	return out, nil
}

// parseList reads a Flink list option ("a;b"); empty items are skipped.
func parseList(s string) []string {
	items, err := tokens(s, ';')
	if err != nil {
		items = strings.Split(s, ";")
	}
	var out []string
	for _, item := range items {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// parseMaps reads a Flink list of maps ("k:v,k:v;k:v"), as the tolerations options are written.
func parseMaps(s string) ([]map[string]string, error) {
	items, err := tokens(s, ';')
	if err != nil {
		return nil, err
	}
	var out []map[string]string
	for _, item := range items {
		if item == "" {
			continue
		}
		m, err := parseMap(item)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}
