package podsim

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/fakeflink/image"
	"github.com/flinkop/flinkop/fakeflink/rest"
	"github.com/flinkop/flinkop/operator/act"
)

// RoundTrip serves the operator's Flink REST calls in process: the host <name>-rest.<ns>…
// picks the fakeflink server behind that JobManager Deployment. No cluster there is a refused
// connection.
func (s *Sim) RoundTrip(req *http.Request) (*http.Response, error) {
	host := req.URL.Hostname()
	svc, domain, _ := strings.Cut(host, ".")
	ns, _, _ := strings.Cut(domain, ".")
	name, ok := strings.CutSuffix(svc, "-rest")
	n := s.node(ns + "/" + act.JobManagerName(name))
	up, state, ssl := false, fakeflink.RESTHealthy, image.RESTSSL{}
	if ok && n != nil && n.broken == "" {
		n.server.Do(func(c *fakeflink.Cluster) {
			up, state = c.Up(), c.RESTState()
			ssl, _ = image.RESTSSLOf(c.Spec().Config) // a bad setting never starts: see image.Start
		})
	}
	switch {
	case !up || state == fakeflink.RESTRefuse:
		return nil, &net0Error{host: host}
	case state == fakeflink.RESTTimeout:
		// In process there is no socket to hang on: the client's timeout fires at once.
		return nil, &timeoutError{host: host}
	case ssl.Enabled && req.URL.Scheme != "https":
		// Flink's SSL handler closes a connection whose first bytes are not a TLS record.
		return nil, &resetError{host: host}
	case !ssl.Enabled && req.URL.Scheme == "https":
		return nil, errHTTPToHTTPS
	case state.Hostile():
		// Made as it is read: an endless answer must not be recorded first.
		status, body := rest.HostileAnswer(state)
		return &http.Response{
			StatusCode: status, Status: http.StatusText(status), Body: io.NopCloser(body),
			Header: http.Header{"Content-Type": {"application/json"}}, Request: req, ProtoMajor: 1, ProtoMinor: 1,
		}, nil
	}
	rec := httptest.NewRecorder()
	n.server.ServeHTTP(rec, req)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

// errHTTPToHTTPS is what Go's client says when a plain HTTP server answers its TLS hello.
var errHTTPToHTTPS = errors.New("http: server gave HTTP response to HTTPS client")

// resetError is a connection the server closed: a plain HTTP request to a TLS endpoint.
type resetError struct{ host string }

func (e *resetError) Error() string { return "read tcp " + e.host + ": read: connection reset by peer" }

func (e *resetError) Unwrap() error { return syscall.ECONNRESET }

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
