package main

import (
	"net/http"
	"slices"
	"strings"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// The webhook certificate rotator keeps its own cache of the certificate Secret and of the
// two webhook configurations, made from its manager's client config with no way to narrow
// it: left alone it lists and watches every Secret of the operator's namespace and every
// webhook configuration of the cluster, which the chart's RBAC would then have to allow. The
// rotator is given a manager whose config asks for one name instead: every list or watch of
// those collections carries fieldSelector=metadata.name=<the operator's object>, which is
// what RBAC needs to authorise a list or watch under resourceNames.

// namedReads is a manager whose client config (GetConfig) lists and watches the collections
// in names (a collection's path, as in the API, to the one object's name) by that name only.
// cert-controller builds the rotator's cache from GetConfig (not GetHTTPClient); should it
// change, the chart's by-name RBAC refuses its lists, which the kind e2e test of the webhook
// shows.
type namedReads struct {
	manager.Manager
	cfg *rest.Config
}

// withNamedReads returns mgr reading each collection of names (path → object name) by name.
func withNamedReads(mgr manager.Manager, names map[string]string) manager.Manager {
	cfg := rest.CopyConfig(mgr.GetConfig())
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &nameSelector{next: rt, names: names} })
	return &namedReads{Manager: mgr, cfg: cfg}
}

// GetConfig is the manager's config with lists and watches narrowed to one name.
func (m *namedReads) GetConfig() *rest.Config { return m.cfg }

// nameSelector narrows a GET of a collection in names to the one object's name. A request
// for anything else passes unchanged; so does one already narrowed by name.
type nameSelector struct {
	next  http.RoundTripper
	names map[string]string
}

func (s *nameSelector) RoundTrip(req *http.Request) (*http.Response, error) {
	name, ok := s.names[strings.TrimSuffix(req.URL.Path, "/")]
	if !ok || req.Method != http.MethodGet {
		return s.next.RoundTrip(req)
	}
	q := req.URL.Query()
	sel := "metadata.name=" + name
	switch have := q.Get("fieldSelector"); {
	case have == "":
	case slices.Contains(strings.Split(have, ","), sel):
		sel = have
	default:
		sel = have + "," + sel
	}
	q.Set("fieldSelector", sel)
	r := req.Clone(req.Context())
	r.URL.RawQuery = q.Encode()
	return s.next.RoundTrip(r)
}

// rotatorReads are the collections the rotator reads, to the names it needs: the Secret
// secretNS/secretName and the webhook configurations named configuration.
func rotatorReads(secretNS, secretName, configuration string) map[string]string {
	return map[string]string{
		"/api/v1/namespaces/" + secretNS + "/secrets":                           secretName,
		"/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations": configuration,
		"/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations":   configuration,
	}
}
