// Package rest serves a fakeflink.Cluster over Flink's JobManager REST API: the same paths,
// methods, status codes, JSON shapes (including the places where Flink's payloads differ from
// its generated OpenAPI spec), the async trigger/poll pattern and the {"errors": [...]} error
// body. It is a thin adapter: every request locks the cluster, advances it to the clock's
// current time (Tick) and translates one core call.
package rest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/flinkop/flinkop/fakeflink"
)

// Server is an http.Handler for one cluster. It serializes access to the cluster: use Do for
// anything else that touches it while the server runs.
type Server struct {
	mu      sync.Mutex
	cluster *fakeflink.Cluster
	mux     *http.ServeMux
	// triggers counts operations that complete at once (data set deletion); done holds
	// their trigger ids.
	triggers int
	done     map[string]bool
}

// NewServer returns a handler serving c.
func NewServer(c *fakeflink.Cluster) *Server {
	s := &Server{cluster: c, mux: http.NewServeMux()}
	s.routes()
	return s
}

// Do runs f with the cluster locked.
func (s *Server) Do(f func(c *fakeflink.Cluster)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s.cluster)
}

// handlerFunc handles one request with the cluster locked and ticked.
type handlerFunc func(c *fakeflink.Cluster, r *http.Request) (status int, body any, err error)

func (s *Server) handle(pattern string, h handlerFunc) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		c := s.cluster
		c.Tick()
		status, body, err := h(c, r)
		s.mu.Unlock()
		if err != nil {
			writeCoreError(w, err)
			return
		}
		writeJSON(w, status, body)
	})
}

// ServeHTTP implements http.Handler: it applies REST faults, strips the optional /v1 prefix
// and answers unknown routes with Flink's 404.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	state := s.cluster.RESTState()
	s.mu.Unlock()
	switch state {
	case fakeflink.RESTRefuse:
		refuse(w)
		return
	case fakeflink.RESTUnavailable:
		writeErrors(w, http.StatusServiceUnavailable, "Service temporarily unavailable due to an ongoing leader election. Please refresh.")
		return
	case fakeflink.RESTTimeout:
		<-r.Context().Done() // the client gives up; nothing is ever written
		return
	}
	if state.Hostile() {
		writeHostile(w, state)
		return
	}
	if rest, ok := strings.CutPrefix(r.URL.Path, "/v1/"); ok {
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/" + rest
		r = r2
	}
	if _, pattern := s.mux.Handler(r); pattern == "" {
		writeErrors(w, http.StatusNotFound, "Not found: "+r.URL.Path)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// refuse closes the connection without an answer, as a JobManager that is down does.
func refuse(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	writeErrors(w, http.StatusServiceUnavailable, "Connection refused: the JobManager is not running.")
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	data, err := json.Marshal(body)
	if err != nil {
		writeErrors(w, http.StatusInternalServerError, "Internal server error.", err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

// errorBody is Flink's error response.
type errorBody struct {
	Errors []string `json:"errors"`
}

func writeErrors(w http.ResponseWriter, status int, msgs ...string) {
	writeJSON(w, status, errorBody{Errors: msgs})
}

// writeCoreError renders a core error the way Flink's handlers do: one string holding the
// stringified exception with its stack, or for internal errors the two-element form.
func writeCoreError(w http.ResponseWriter, err error) {
	var fe *fakeflink.Error
	if !errors.As(err, &fe) || fe.Kind == fakeflink.KindInternal {
		writeErrors(w, http.StatusInternalServerError, "Internal server error.",
			fmt.Sprintf("<Exception on server side:\n%s\n\tat org.apache.flink.runtime.rest.handler.AbstractHandler.respondAsLeader(AbstractHandler.java:196)\n\nEnd of exception on server side>", err))
		return
	}
	status, class := http.StatusBadRequest, "org.apache.flink.runtime.rest.handler.RestHandlerException"
	switch fe.Kind {
	case fakeflink.KindNotFound:
		status, class = http.StatusNotFound, "org.apache.flink.runtime.rest.NotFoundException"
	case fakeflink.KindConflict:
		status = http.StatusConflict
	case fakeflink.KindUnavailable:
		status = http.StatusServiceUnavailable
	}
	writeErrors(w, status, fmt.Sprintf("%s: %s\n\tat org.apache.flink.runtime.rest.handler.AbstractRestHandler.respondToRequest(AbstractRestHandler.java:83)\n", class, fe.Msg))
}

// badRequest is the error for a body that does not parse.
func badRequest(bodyClass string, err error) error {
	return &fakeflink.Error{Kind: fakeflink.KindBadRequest, Msg: fmt.Sprintf(
		"Request did not match expected format %s. %v", bodyClass, err)}
}

// decodeBody reads a JSON body leniently, as Flink does: unknown fields are ignored and an
// empty body reads as {}.
func decodeBody(r *http.Request, bodyClass string, v any) error {
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return badRequest(bodyClass, err)
	}
	return nil
}

func (s *Server) routes() {
	s.clusterRoutes()
	s.jobRoutes()
	s.snapshotRoutes()
	s.jarRoutes()
	s.metricRoutes()
	s.vertexRoutes()
	s.jobExtraRoutes()
	s.clusterExtraRoutes()
	s.applicationRoutes()
}
