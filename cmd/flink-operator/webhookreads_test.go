package main

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// recordQuery is a transport that records the fieldSelector of each request.
type recordQuery struct{ got []string }

func (r *recordQuery) RoundTrip(req *http.Request) (*http.Response, error) {
	r.got = append(r.got, req.Method+" "+req.URL.Path+" "+req.URL.Query().Get("fieldSelector"))
	return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody, Request: req}, nil
}

func TestNameSelectorNarrowsTheRotatorsReads(t *testing.T) {
	names := rotatorReads("flinkop-system", "flinkop-webhook-cert", "flinkop-webhook")
	tests := map[string]struct {
		method, url string
		want        string
	}{
		"a list of the namespace's Secrets": {
			http.MethodGet, "/api/v1/namespaces/flinkop-system/secrets?limit=500",
			"GET /api/v1/namespaces/flinkop-system/secrets metadata.name=flinkop-webhook-cert",
		},
		"a watch of the validating configurations": {
			http.MethodGet, "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations?watch=true",
			"GET /apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations metadata.name=flinkop-webhook",
		},
		"a list of the mutating configurations with a selector of its own": {
			http.MethodGet, "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations?fieldSelector=a%3Db",
			"GET /apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations a=b,metadata.name=flinkop-webhook",
		},
		"already narrowed to the name": {
			http.MethodGet, "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations?fieldSelector=metadata.name%3Dflinkop-webhook",
			"GET /apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations metadata.name=flinkop-webhook",
		},
		"Secrets of another namespace pass unchanged": {
			http.MethodGet, "/api/v1/namespaces/flink/secrets",
			"GET /api/v1/namespaces/flink/secrets ",
		},
		"an update by name passes unchanged": {
			http.MethodPut, "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/flinkop-webhook",
			"PUT /apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/flinkop-webhook ",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			rec := &recordQuery{}
			s := &nameSelector{next: rec, names: names}
			resp, err := s.RoundTrip(httptest.NewRequest(tc.method, tc.url, http.NoBody))
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if diff := cmp.Diff([]string{tc.want}, rec.got); diff != "" {
				t.Errorf("request sent (-want +got):\n%s", diff)
			}
		})
	}
}
