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
	up, state := false, fakeflink.RESTHealthy
	if ok && n != nil && n.broken == "" {
		n.server.Do(func(c *fakeflink.Cluster) { up, state = c.Up(), c.RESTState() })
	}
	switch {
	case !up || state == fakeflink.RESTRefuse:
		return nil, &net0Error{host: host}
	case state == fakeflink.RESTTimeout:
		// In process there is no socket to hang on: the client's timeout fires at once.
		return nil, &timeoutError{host: host}
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

// timeoutError is a request that got no answer before the client's timeout.
type timeoutError struct{ host string }

func (e *timeoutError) Error() string {
	return "Get " + e.host + ": context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
}

// Timeout implements net.Error.
func (e *timeoutError) Timeout() bool { return true }

// Temporary implements net.Error.
func (e *timeoutError) Temporary() bool { return true }
