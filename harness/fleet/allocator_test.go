package fleet

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseAllocations(t *testing.T) {
	for name, tc := range map[string]struct {
		text string
		want Allocations
	}{
		"before the first": {text: "# TYPE apiserver_request_total counter\napiserver_request_total{verb=\"GET\"} 3\n"},
		"two ranges": {
			text: `# HELP kube_apiserver_clusterip_allocator_allocation_duration_seconds [ALPHA] Duration in seconds to allocate a Cluster IP by ServiceCIDR
# TYPE kube_apiserver_clusterip_allocator_allocation_duration_seconds histogram
kube_apiserver_clusterip_allocator_allocation_duration_seconds_bucket{cidr="10.0.0.0/16",le="0.005"} 1
kube_apiserver_clusterip_allocator_allocation_duration_seconds_bucket{cidr="10.0.0.0/16",le="+Inf"} 3510
kube_apiserver_clusterip_allocator_allocation_duration_seconds_sum{cidr="10.0.0.0/16"} 157.66595306400006
kube_apiserver_clusterip_allocator_allocation_duration_seconds_count{cidr="10.0.0.0/16"} 3510
kube_apiserver_clusterip_allocator_allocation_duration_seconds_bucket{cidr="fd00::/108",le="+Inf"} 2
kube_apiserver_clusterip_allocator_allocation_duration_seconds_sum{cidr="fd00::/108"} 0.5
kube_apiserver_clusterip_allocator_allocation_duration_seconds_count{cidr="fd00::/108"} 2
`,
			want: Allocations{N: 3512, Total: 158165953064},
		},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := parseAllocations([]byte(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestAllocationsShare(t *testing.T) {
	a := Allocations{N: 10500, Total: 1210 * time.Second}.Sub(Allocations{N: 500, Total: 10 * time.Second})
	for name, tc := range map[string]struct {
		a      Allocations
		within time.Duration
		read   bool
		want   string
	}{
		"measured":     {a: a, within: 1685 * time.Second, read: true, want: "10000, mean 120 ms, together 71 % of 1685 s"},
		"none":         {within: time.Second, read: true, want: "none"},
		"unread":       {a: a, within: time.Second, want: "unknown"},
		"not measured": {a: a, read: true, want: "not measured"},
	} {
		t.Run(name, func(t *testing.T) {
			if got := tc.a.share(tc.within, tc.read); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
