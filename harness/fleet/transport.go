package fleet

import (
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
)

// slowTransport carries the operator's Flink REST calls to the pod simulator, counting them;
// the JobManagers marked slow never answer: a call waits until its deadline, as a call to a
// hung JobManager does.
type slowTransport struct {
	inner http.RoundTripper
	calls atomic.Int64
	hung  atomic.Int64 // calls to a hung JobManager
	mu    sync.Mutex
	slow  map[string]bool // resource names
}

func (t *slowTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.calls.Add(1)
	svc, _, _ := strings.Cut(req.URL.Hostname(), ".")
	name := strings.TrimSuffix(svc, "-rest")
	t.mu.Lock()
	slow := t.slow[name]
	t.mu.Unlock()
	if slow {
		t.hung.Add(1)
		<-req.Context().Done()
		return nil, req.Context().Err()
	}
	return t.inner.RoundTrip(req)
}

func (t *slowTransport) setSlow(names []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.slow = map[string]bool{}
	for _, n := range names {
		t.slow[n] = true
	}
}

// apiCounter counts the operator's requests to the Kubernetes API, writes apart, the writes
// by verb and resource, the reads by resource and kind of read (get, list, watch), and the
// requests that failed by verb, resource and status code.
type apiCounter struct {
	inner         http.RoundTripper
	reads, writes atomic.Int64
	mu            sync.Mutex
	byKind        map[string]int64
	readsByKind   map[string]int64
	failed        map[string]int64
}

func (c *apiCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	what := req.Method + " " + resourceOf(req.URL.Path)
	switch req.Method {
	case http.MethodGet:
		c.reads.Add(1)
		c.count(&c.readsByKind, readKind(req))
	default:
		c.writes.Add(1)
		c.count(&c.byKind, what)
	}
	resp, err := c.inner.RoundTrip(req)
	switch {
	case err != nil:
		c.count(&c.failed, what+" (no answer)")
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		c.count(&c.failed, fmt.Sprintf("%s %d", what, resp.StatusCode))
	}
	return resp, err
}

func (c *apiCounter) count(m *map[string]int64, key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if *m == nil {
		*m = map[string]int64{}
	}
	(*m)[key]++
}

// failures returns a copy of the counts of requests the API server failed (5xx, 429) or did
// not answer, by verb, resource and code.
func (c *apiCounter) failures() map[string]int64 { return c.copyOf(&c.failed) }

// writesByKind returns a copy of the write counts by verb and resource.
func (c *apiCounter) writesByKind() map[string]int64 { return c.copyOf(&c.byKind) }

// readsByKinds returns a copy of the read counts by kind of read and resource.
func (c *apiCounter) readsByKinds() map[string]int64 { return c.copyOf(&c.readsByKind) }

// copyOf copies one of c's count maps under its lock (count may replace a nil one).
func (c *apiCounter) copyOf(m *map[string]int64) map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(*m)
}

// readKind names a GET by what it reads: "get services", "list pods" or "watch pods".
func readKind(req *http.Request) string {
	res := resourceOf(req.URL.Path)
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	switch {
	case req.URL.Query().Get("watch") == "true" || req.URL.Query().Get("watch") == "1":
		return "watch " + res
	case len(parts) > 0 && parts[len(parts)-1] == res, !strings.Contains(req.URL.Path, "/namespaces/"):
		return "list " + res
	}
	return "get " + res
}

// resourceOf is the resource (and subresource) a namespaced API path names:
// /apis/apps/v1/namespaces/fleet/deployments/job-1/status is "deployments/status".
func resourceOf(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	for i, p := range parts {
		if p == "namespaces" && i+2 < len(parts) {
			res := parts[i+2]
			if len(parts) > i+4 {
				res += "/" + parts[i+4]
			}
			return res
		}
	}
	return path
}
