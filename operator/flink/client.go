package flink

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/flinkop/flinkop/operator/clip"
)

// Default timeouts, the Apache operator's: DefaultTimeout bounds every call unless the context
// has an earlier deadline, but a job's cancel (DefaultCancelTimeout) and a jar's run
// (DefaultSubmitTimeout).
const (
	DefaultTimeout       = 10 * time.Second
	DefaultCancelTimeout = time.Minute
	DefaultSubmitTimeout = 10 * time.Minute
)

// Client calls one JobManager's REST API.
type Client struct {
	base    string
	http    *http.Client
	timeout time.Duration
	// cancelTimeout and submitTimeout replace timeout for a job's cancel and a jar's run.
	cancelTimeout, submitTimeout time.Duration
	budget                       *AnswerBudget
	tenant                       string
	refused                      atomic.Bool // a call's answer found the budget spent
}

// Option configures a Client.
type Option func(*Client)

// WithTransport sends requests through rt (the chaos package wraps it to inject faults; tests
// use mocks).
func WithTransport(rt http.RoundTripper) Option {
	return func(c *Client) { c.http = &http.Client{Transport: rt, CheckRedirect: noRedirects} }
}

// noRedirects answers a redirect with itself (an error of the call): Flink's REST API never
// redirects, and following one would send the call, its body and the operator's client
// certificate wherever a tenant's image points.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// WithAnswerBudget reads the client's answers within budget, as tenant's (a namespace): see
// AnswerBudget.
func WithAnswerBudget(budget *AnswerBudget, tenant string) Option {
	return func(c *Client) { c.budget, c.tenant = budget, tenant }
}

// WithTimeout sets the per-call timeout (zero or less: DefaultTimeout).
func WithTimeout(d time.Duration) Option { return func(c *Client) { setTimeout(&c.timeout, d) } }

// WithCancelTimeout bounds a job's cancel call (kubernetes.operator.flink.client.cancel.timeout)
// instead of the per-call timeout.
func WithCancelTimeout(d time.Duration) Option {
	return func(c *Client) { setTimeout(&c.cancelTimeout, d) }
}

// WithSubmitTimeout bounds a jar's run call, which runs the job's main method on the
// JobManager (kubernetes.operator.job.submission.timeout), instead of the per-call timeout.
func WithSubmitTimeout(d time.Duration) Option {
	return func(c *Client) { setTimeout(&c.submitTimeout, d) }
}

// setTimeout sets *dst to d unless d is zero or less (then the default stays).
func setTimeout(dst *time.Duration, d time.Duration) {
	if d > 0 {
		*dst = d
	}
}

// restTransport carries the calls of clients given no transport: Go's default transport,
// except that all of its idle connections (100) may be kept for one host, not 2. Each
// JobManager is its own host and is called a few times in a row per reconcile, which 2 serve;
// but through an HTTP proxy (HTTP_PROXY) every call goes to the proxy, and with 2 kept, the
// reconcile workers calling at once dialled a new connection for most calls (at 5,000
// deployments, 7 % of the operator's CPU went to dialling).
var restTransport = func() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone() //nolint:forcetypeassert // net/http's own default
	t.MaxIdleConnsPerHost = t.MaxIdleConns
	t.MaxResponseHeaderBytes = MaxAnswerHeaderBytes
	return t
}()

// NewClient returns a client of the JobManager at baseURL (e.g. http://basic-rest.ns:8081).
func NewClient(baseURL string, opts ...Option) *Client {
	c := &Client{
		base:    strings.TrimSuffix(baseURL, "/"),
		http:    &http.Client{Transport: restTransport, CheckRedirect: noRedirects},
		timeout: DefaultTimeout, cancelTimeout: DefaultCancelTimeout, submitTimeout: DefaultSubmitTimeout,
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// BaseURL is the JobManager address the client calls.
func (c *Client) BaseURL() string { return c.base }

// call sends a JSON request and decodes a JSON answer into out (when out is not nil).
func (c *Client) call(ctx context.Context, method, path string, in, out any) error {
	return c.callWithin(ctx, c.timeout, method, path, in, out)
}

// callWithin is call with its own timeout.
func (c *Client) callWithin(ctx context.Context, timeout time.Duration, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		data, err := json.Marshal(in)
		if err != nil {
			return &Error{Method: method, Path: path, Err: fmt.Errorf("encode request: %w", err)}
		}
		body = bytes.NewReader(data)
	}
	return c.send(ctx, timeout, method, path, body, "application/json", out)
}

func (c *Client) send(ctx context.Context, timeout time.Duration, method, path string, body io.Reader, contentType string, out any) error {
	if sb, ok := body.(sizedBody); ok {
		// An upload may take longer than a call: its size at uploadRate comes on top.
		timeout += time.Duration(sb.size/uploadRate) * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return &Error{Method: method, Path: path, Err: err}
	}
	if sb, ok := body.(sizedBody); ok {
		req.ContentLength = sb.size
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return &Error{Method: method, Path: path, Err: err}
	}
	defer func() { _ = resp.Body.Close() }()
	err = c.readAnswer(method, path, resp, out)
	if errors.Is(err, ErrAnswerBudget) {
		c.refused.Store(true)
	}
	return err
}

// AnswerBudgetRefused reports whether an answer of one of the client's calls could not be
// read because the answer budget was spent: what those calls would have told is unknown, not
// absent, and the caller looks again shortly instead of deciding on it.
func (c *Client) AnswerBudgetRefused() bool { return c.refused.Load() }

// readAnswer reads an answer within its endpoint's limit and the client's answer budget:
// decoded into out as it streams in, or, for an error answer, Flink's messages, each cut.
func (c *Client) readAnswer(method, path string, resp *http.Response, out any) error {
	ok := resp.StatusCode >= 200 && resp.StatusCode <= 299
	limit := AnswerLimit(method, path)
	if !ok {
		limit = AnswerError
	}
	body := &answerReader{r: resp.Body, limit: limit, budget: c.budget, tenant: c.tenant}
	defer body.Release()
	if !ok {
		return errorAnswer(method, path, resp.StatusCode, body)
	}
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(body).Decode(out); err != nil && !errors.Is(err, io.EOF) {
		return &Error{Method: method, Path: path, StatusCode: resp.StatusCode, Err: fmt.Errorf("decode answer: %w", err)}
	}
	return nil
}

// maxMessages is how many of an error answer's messages are kept.
const maxMessages = 8

// errorAnswer is the Error of an HTTP error answer: Flink's "errors" messages (at most
// maxMessages, each cut to clip.Message), else the answer's start.
func errorAnswer(method, path string, code int, body io.Reader) error {
	e := &Error{Method: method, Path: path, StatusCode: code}
	data, err := io.ReadAll(body)
	if err != nil && !errors.Is(err, ErrAnswerTooLarge) {
		e.Err = fmt.Errorf("read answer: %w", err)
		return e
	}
	var eb struct {
		Errors []string `json:"errors"`
	}
	if json.Unmarshal(data, &eb) == nil {
		for _, m := range eb.Errors[:min(len(eb.Errors), maxMessages)] {
			e.Messages = append(e.Messages, clip.String(m, clip.Message))
		}
	}
	if len(e.Messages) == 0 {
		e.Err = fmt.Errorf("answer: %s", clip.Line(string(data[:min(len(data), 400)]), 200))
	}
	return e
}

// escape escapes one path segment.
func escape(s string) string { return url.PathEscape(s) }

// errNoTrigger is returned when a trigger answer carries no request-id.
var errNoTrigger = errors.New("answer has no request-id")
