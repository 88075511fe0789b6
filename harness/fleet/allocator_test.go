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
	a := Allocations{N: 10000, Total: 1200 * time.Second}.Sub(Allocations{N: 0, Total: 0})
	if got, want := a.share(1685*time.Second), "10000, mean 120 ms, together 71 % of 1685 s"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := (Allocations{}).share(time.Second); got != "none" {
		t.Errorf("no allocations: got %q", got)
	}
}
