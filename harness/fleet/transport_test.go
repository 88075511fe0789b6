package fleet

import (
	"net/http"
	"testing"
)

// readKind tells a get from a list and a watch, by the request's path and query.
func TestReadKind(t *testing.T) {
	for path, want := range map[string]string{
		"/apis/apps/v1/namespaces/fleet/deployments":                        "list deployments",
		"/apis/apps/v1/namespaces/fleet/deployments?watch=true":             "watch deployments",
		"/apis/apps/v1/namespaces/fleet/deployments/job-1":                  "get deployments",
		"/apis/apps/v1/namespaces/fleet/deployments/job-1/status":           "get deployments/status",
		"/api/v1/namespaces/fleet/pods?labelSelector=app%3Djob-1":           "list pods",
		"/apis/flink.apache.org/v1beta1/flinkdeployments?watch=1&limit=500": "watch /apis/flink.apache.org/v1beta1/flinkdeployments",
		"/apis/flink.apache.org/v1beta1/flinkdeployments?resourceVersion=0": "list /apis/flink.apache.org/v1beta1/flinkdeployments",
	} {
		req, err := http.NewRequest(http.MethodGet, "https://api"+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := readKind(req); got != want {
			t.Errorf("readKind(%s) = %q, want %q", path, got, want)
		}
	}
}
