package flink

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAnswerLimit(t *testing.T) {
	cases := map[string]struct {
		method, path string
		want         int64
	}{
		"jobs overview":        {http.MethodGet, "/jobs/overview", AnswerJobList},
		"job details":          {http.MethodGet, "/jobs/" + jobID, AnswerJobList},
		"job status":           {http.MethodGet, "/jobs/" + jobID + "/status", AnswerSmall},
		"exceptions":           {http.MethodGet, "/jobs/" + jobID + "/exceptions", AnswerHistory},
		"checkpoint config":    {http.MethodGet, "/jobs/" + jobID + "/checkpoints/config", AnswerSmall},
		"checkpoint trigger":   {http.MethodGet, "/jobs/" + jobID + "/checkpoints/abc", AnswerOperation},
		"checkpoint details":   {http.MethodGet, "/jobs/" + jobID + "/checkpoints/details/7", AnswerHistory},
		"savepoint status":     {http.MethodGet, "/jobs/" + jobID + "/savepoints/abc", AnswerOperation},
		"metrics, with query":  {http.MethodGet, "/jobs/" + jobID + "/metrics?get=a,b", AnswerConfig},
		"subtask metrics":      {http.MethodGet, "/jobs/" + jobID + "/vertices/v1/subtasks/metrics?get=x", AnswerConfig},
		"jar run (a POST)":     {http.MethodPost, "/jars/x.jar/run", AnswerSmall},
		"unknown path":         {http.MethodGet, "/jobs/" + jobID + "/something/else", AnswerSmall},
		"dashboard config":     {http.MethodGet, "/config", AnswerSmall},
		"jobmanager config":    {http.MethodGet, "/jobmanager/config", AnswerConfig},
		"savepoint disposal":   {http.MethodGet, "/savepoint-disposal/t1", AnswerOperation},
		"taskmanagers listing": {http.MethodGet, "/taskmanagers", AnswerHistory},
	}
	got, want := map[string]int64{}, map[string]int64{}
	for name, c := range cases {
		got[name], want[name] = AnswerLimit(c.method, c.path), c.want
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("AnswerLimit mismatch (-want +got):\n%s", diff)
	}
}

// hostileTransport answers every call with a JSON object padded to size bytes, made as it is
// read, and tracks the bytes its answers handed out and were not yet closed: the most a client
// can hold of them at once.
type hostileTransport struct {
	size           int64
	inFlight, peak atomic.Int64
}

type hostileBody struct {
	t    *hostileTransport
	r    io.Reader
	read int64
}

func (b *hostileBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.read += int64(n)
	now := b.t.inFlight.Add(int64(n))
	for {
		peak := b.t.peak.Load()
		if now <= peak || b.t.peak.CompareAndSwap(peak, now) {
			break
		}
	}
	return n, err
}

func (b *hostileBody) Close() error {
	b.t.inFlight.Add(-b.read)
	b.read = 0
	return nil
}

var xs = []byte(strings.Repeat("x", 64<<10))

// padReader yields `{"jobs":[],"pad":"xxx…"}` of size bytes without holding it.
type padReader struct{ left int64 }

func (r *padReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(int64(len(p)), r.left)], xs)
	r.left -= int64(n)
	return n, nil
}

func (t *hostileTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	head := `{"jobs":[],"pad":"`
	body := io.MultiReader(strings.NewReader(head), &padReader{left: t.size - int64(len(head)) - 2}, strings.NewReader(`"}`))
	return &http.Response{StatusCode: http.StatusOK, Body: &hostileBody{t: t, r: body}, Header: http.Header{}, Request: req}, nil
}

// TestHostileJobManagersBoundedByBudget: JobManagers of 20 namespaces that answer every call
// with 15 MiB, read by 100 reconciles at once, make the operator hold at most its answer
// budget (plus each call's free first bytes and one read buffer), never 100 answers; every
// call fails as too large or out of budget, and a well-behaved namespace's small answer still
// reads while they do. Without the budget the peak is every call's endpoint limit at once.
func TestHostileJobManagersBoundedByBudget(t *testing.T) {
	const calls, tenants = 100, 20
	hostile := &hostileTransport{size: 15 << 20}
	const total = 8 << 20 // smaller than the default, to keep the test fast under -race
	budget := NewAnswerBudget(total, total/4)
	var wg sync.WaitGroup
	errs := make([]error, calls)
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := NewClient(jm, WithTransport(hostile), WithAnswerBudget(budget, fmt.Sprintf("tenant-%d", i%tenants)))
			_, errs[i] = c.ListJobs(context.Background())
		}()
	}
	good := &hostileTransport{size: 40 << 10}
	goodClient := NewClient(jm, WithTransport(good), WithAnswerBudget(budget, "good"))
	if _, err := goodClient.ListJobs(context.Background()); err != nil {
		t.Errorf("a well-behaved JobManager's 40 KiB answer while hostile ones read: %v", err)
	}
	wg.Wait()
	for i, err := range errs {
		if !errors.Is(err, ErrAnswerTooLarge) && !errors.Is(err, ErrAnswerBudget) {
			t.Errorf("call %d: err = %v, want ErrAnswerTooLarge or ErrAnswerBudget", i, err)
		}
	}
	// json.Decoder reads into a buffer it doubles: one read may ask for up to the free bytes
	// and a chunk at once, and the transport counts a read before the reader gives it back.
	bound := int64(total) + calls*int64(FreeAnswerBytes+budgetChunk)
	if peak := hostile.peak.Load(); peak > bound {
		t.Errorf("bytes of hostile answers held at once: %d MiB, want at most %d MiB", peak>>20, bound>>20)
	}
	if total, _, _ := budget.Used("tenant-0"); total != 0 {
		t.Errorf("budget still taken after every call returned: %d bytes", total)
	}
}

// TestAnswerBudgetShares: one tenant takes at most its share, all tenants at most the total,
// and what a reader took is given back.
func TestAnswerBudgetShares(t *testing.T) {
	b := NewAnswerBudget(3*budgetChunk, 2*budgetChunk)
	got := []bool{
		b.take("a", budgetChunk), b.take("a", budgetChunk), b.take("a", budgetChunk), // the third is over a's share
		b.take("b", budgetChunk), b.take("c", budgetChunk), // c is over the total
	}
	if diff := cmp.Diff([]bool{true, true, false, true, false}, got); diff != "" {
		t.Errorf("takes mismatch (-want +got):\n%s", diff)
	}
	b.give("a", 2*budgetChunk)
	if total, a, refused := b.Used("a"); total != budgetChunk || a != 0 || refused != 2 {
		t.Errorf("after a gave back: total %d, a %d, refused %d; want %d, 0, 2", total, a, refused, budgetChunk)
	}
}

// TestErrorAnswerCut: an error answer's messages are cut to clip.Message bytes each, and
// more than maxMessages are dropped; an error answer larger than AnswerError is not kept.
func TestErrorAnswerCut(t *testing.T) {
	for name, size := range map[string]int{"20 messages of 12 KiB": 12 << 10, "20 messages of 1 MiB": 1 << 20} {
		t.Run(name, func(t *testing.T) { testErrorAnswerCut(t, size) })
	}
}

func testErrorAnswerCut(t *testing.T, size int) {
	t.Helper()
	huge := strings.Repeat("A", size)
	msgs := make([]string, 20)
	for i := range msgs {
		msgs[i] = `"` + huge + `"`
	}
	body := `{"errors":[` + strings.Join(msgs, ",") + `]}`
	c, mt := mockClient(t)
	mt.RegisterResponder(http.MethodGet, jm+"/jobs/overview", func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: http.StatusInternalServerError, Body: io.NopCloser(strings.NewReader(body)), Header: http.Header{}}, nil
	})
	_, err := c.ListJobs(context.Background())
	var fe *Error
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v, want *Error", err)
	}
	if len(err.Error()) > 10<<10 {
		t.Errorf("error text is %d bytes, want at most 10 KiB", len(err.Error()))
	}
	for i, m := range fe.Messages {
		if len(m) > 8<<10 {
			t.Errorf("message %d is %d bytes, want at most 8 KiB", i, len(m))
		}
	}
	if size < 16<<10 && len(fe.Messages) == 0 {
		t.Error("no message kept of an error answer within AnswerError")
	}
	if len(fe.Messages) > maxMessages {
		t.Errorf("%d messages kept, want at most %d", len(fe.Messages), maxMessages)
	}
}

// TestAnswerHeadersBounded: a JobManager whose answer has 1 MiB of headers is an error, read
// no further than MaxAnswerHeaderBytes (Go's default would read 10 MiB).
func TestAnswerHeadersBounded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Pad", strings.Repeat("p", 1<<20))
		_, _ = io.WriteString(w, `{"jobs":[]}`)
	}))
	defer srv.Close()
	if _, err := NewClient(srv.URL).ListJobs(t.Context()); err == nil || !strings.Contains(err.Error(), "header") {
		t.Errorf("an answer with 1 MiB of headers: err %v, want the header limit's error", err)
	}
}
