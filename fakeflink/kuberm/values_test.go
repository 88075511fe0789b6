package kuberm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestValuesAsFlinkReadsThem: maps, lists and lists of maps split as Flink's
// StructuredOptionsSplitter splits them (quotes keep delimiters), durations in Flink's units.
func TestValuesAsFlinkReadsThem(t *testing.T) {
	m, err := parseMap(`a.b/c:'d,e',x:"'y:z'",`)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"a.b/c": "d,e", "x": "y:z"}, m); diff != "" {
		t.Errorf("map (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"a:b:c", "novalue", ":v", "a:'open"} {
		if _, err := parseMap(bad); err == nil {
			t.Errorf("parseMap(%q): no error", bad)
		}
	}
	if diff := cmp.Diff([]string{"r1", "r;2"}, parseList(`r1;'r;2';`)); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	ms, err := parseMaps("key:k1,effect:NoSchedule;key:k2")
	if err != nil || len(ms) != 2 || ms[1]["key"] != "k2" {
		t.Errorf("list of maps %v, %v", ms, err)
	}
}
