package rest

import (
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// An aggregated metrics answer follows Flink's AbstractAggregatingMetricsHandler: a requested
// metric no component has empties the whole answer; a non-numeric one is left out.
func TestAggregateAsFlink(t *testing.T) {
	per := map[string]map[string]string{
		"tm-1": {"load": "1", "host": "a"},
		"tm-2": {"load": "3"},
	}
	for name, tc := range map[string]struct {
		query string
		want  []map[string]any
	}{
		"names":             {"", []map[string]any{{"id": "host"}, {"id": "load"}}},
		"values":            {"?get=load&agg=min,max,sum", []map[string]any{{"id": "load", "min": 1.0, "max": 3.0, "sum": 4.0}}},
		"a non-numeric one": {"?get=host,load&agg=avg", []map[string]any{{"id": "load", "avg": 2.0}}},
		"an unknown one":    {"?get=load,nope", []map[string]any{}},
	} {
		t.Run(name, func(t *testing.T) {
			got := aggregate(per, httptest.NewRequest("GET", "/taskmanagers/metrics"+tc.query, nil))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
