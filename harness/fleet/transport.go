package fleet

import (
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

// apiCounter counts the operator's requests to the Kubernetes API, writes apart.
type apiCounter struct {
	inner         http.RoundTripper
	reads, writes atomic.Int64
}

func (c *apiCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	switch req.Method {
	case http.MethodGet:
		c.reads.Add(1)
	default:
		c.writes.Add(1)
	}
	return c.inner.RoundTrip(req)
}
