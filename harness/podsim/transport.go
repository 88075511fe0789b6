package podsim

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/operator/act"
)

// RoundTrip serves the operator's Flink REST calls in process: the host <name>-rest.<ns>…
// picks the fakeflink server behind that JobManager Deployment. No cluster there is a refused
// connection.
func (s *Sim) RoundTrip(req *http.Request) (*http.Response, error) {
	host := req.URL.Hostname()
	svc, rest, _ := strings.Cut(host, ".")
	ns, _, _ := strings.Cut(rest, ".")
	name, ok := strings.CutSuffix(svc, "-rest")
	n := s.node(ns + "/" + act.JobManagerName(name))
	up := false
	if ok && n != nil && n.broken == "" {
		n.server.Do(func(c *fakeflink.Cluster) { up = c.Up() })
	}
	if !up {
		return nil, &net0Error{host: host}
	}
	rec := httptest.NewRecorder()
	n.server.ServeHTTP(rec, req)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

// net0Error is a refused connection.
type net0Error struct{ host string }

func (e *net0Error) Error() string { return "dial tcp " + e.host + ": connect: connection refused" }

func (e *net0Error) Unwrap() error { return syscall.ECONNREFUSED }
