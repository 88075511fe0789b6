package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/harness/fixtures"
)

// validator checks every exchange against the spec and records what it saw.
type validator struct {
	t      *testing.T
	router routers.Router
	mu     sync.Mutex
	seen   map[string]bool
	used   map[int]bool
	errs   []string
}

func (v *validator) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil {
		reqBody, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	respBody, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(respBody))

	check := req.Clone(context.Background())
	check.Body = io.NopCloser(bytes.NewReader(reqBody))
	if rest, ok := strings.CutPrefix(check.URL.Path, "/v1/"); ok { // every path also works under /v1
		check.URL.Path = "/" + rest
	}
	route, params, err := v.router.FindRoute(check)
	if err != nil {
		if resp.StatusCode == http.StatusNotFound { // an unknown route: only Flink's error shape applies
			checkErrorBody(v, req.Method+" "+req.URL.Path, resp.StatusCode, respBody)
			return resp, nil
		}
		v.fail("", []string{fmt.Sprintf("%s %s: no route in the spec: %v", req.Method, req.URL.Path, err)})
		return resp, nil
	}
	op := req.Method + " " + route.Path
	v.mu.Lock()
	v.seen[op] = true
	v.mu.Unlock()
	in := &openapi3filter.RequestValidationInput{
		Request: check, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true},
	}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		v.fail(op, problems(err))
	}
	if resp.StatusCode >= 300 {
		checkErrorBody(v, op, resp.StatusCode, respBody)
		return resp, nil
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: resp.StatusCode,
		Header: resp.Header, Body: io.NopCloser(bytes.NewReader(respBody)), Options: &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		v.fail(op, problems(err))
	}
	return resp, nil
}

// checkErrorBody checks Flink's error shape, which the spec does not describe.
func checkErrorBody(v *validator, op string, status int, body []byte) {
	var e struct {
		Errors []string `json:"errors"`
	}
	if err := json.Unmarshal(body, &e); err != nil || len(e.Errors) == 0 {
		v.fail(op, []string{fmt.Sprintf("status %d with a body that is not {\"errors\":[...]}: %s", status, body)})
	}
}

// fail records validation problems unless a documented exception covers them.
func (v *validator) fail(op string, lines []string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, line := range lines {
		covered := false
		for i, ex := range specExceptions {
			if ex.operation == op && strings.Contains(line, ex.contains) {
				v.used[i], covered = true, true
			}
		}
		if !covered {
			v.errs = append(v.errs, op+": "+line)
		}
	}
}

// problems flattens kin-openapi's validation errors into one line per problem, naming the
// JSON pointer of each schema error.
func problems(err error) []string {
	switch e := err.(type) {
	case openapi3.MultiError:
		var out []string
		for _, x := range e {
			out = append(out, problems(x)...)
		}
		return out
	case *openapi3filter.ResponseError:
		if e.Err != nil {
			return problems(e.Err)
		}
	case *openapi3filter.RequestError:
		if e.Parameter != nil {
			var reason []string
			if e.Err != nil {
				reason = problems(e.Err)
			}
			return []string{fmt.Sprintf("parameter %q in %s: %s", e.Parameter.Name, e.Parameter.In, strings.Join(reason, "; "))}
		}
		if e.Err != nil {
			return problems(e.Err)
		}
	case *openapi3.SchemaError:
		return []string{fmt.Sprintf("at %q: %s", "/"+strings.Join(e.JSONPointer(), "/"), e.Reason)}
	}
	return []string{strings.SplitN(err.Error(), "\n", 2)[0]}
}

// loadRouter loads Flink's REST spec and returns a router over it and its operations
// ("METHOD /path/{template}").
func loadRouter(t *testing.T) (routers.Router, []string) {
	t.Helper()
	path := filepath.Join(fixtures.SharedDir(t), "reference", "flink-rest", "rest_v1_dispatcher.yml")
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(path)
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	doc.Servers = openapi3.Servers{{URL: "/"}}
	r, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatalf("router: %v", err)
	}
	var ops []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			ops = append(ops, method+" "+path)
		}
	}
	slices.Sort(ops)
	return r, ops
}

// TestRESTConformsToFlinkSpec exercises every operation of Flink's REST spec on a session and
// an application cluster and validates each request and response against the spec. Only the
// documented exceptions above may differ, and each of them must still occur (a stale exception
// fails the test too).
func TestRESTConformsToFlinkSpec(t *testing.T) {
	router, operations := loadRouter(t)
	v := &validator{t: t, router: router, seen: map[string]bool{}, used: map[int]bool{}}
	w := newWorld(t)
	session := w.start(t, fakeflink.ClusterSpec{ID: "session", Config: conf(
		"jobmanager.scheduler", "adaptive",
		"historyserver.log.jobmanager.url-pattern", "https://logs.example.com/<jobid>/jobmanager",
		"historyserver.log.taskmanager.url-pattern", "https://logs.example.com/<jobid>/<tmid>",
	)})
	api := w.client(session, v)

	// Session cluster: upload, run, checkpoint, savepoint, rescale, metrics, cancel, delete.
	jarID := api.uploadJar(t, "wordcount.jar")
	api.expect(t, "GET", "/jars", nil, 200)
	var run struct {
		JobID string `json:"jobid"`
	}
	api.decode(t, api.expect(t, "POST", "/jars/"+jarID+"/run", map[string]any{
		"entryClass": "org.example.WordCount", "programArgsList": []string{"--in", "x"}, "parallelism": 2,
		"jobId": strings.Repeat("1a", 16), "allowNonRestoredState": false, "flinkConfiguration": map[string]string{"pipeline.name": "wc"},
	}, 200), &run)
	job := run.JobID
	w.advance(15*time.Second, session)
	for _, p := range []string{
		"/config", "/overview", "/jobmanager/config", "/jobs", "/jobs/overview", "/taskmanagers",
		"/jobs/" + job, "/jobs/" + job + "/status", "/jobs/" + job + "/exceptions", "/jobs/" + job + "/execution-result",
		"/jobs/" + job + "/checkpoints", "/jobs/" + job + "/checkpoints/config", "/jobs/" + job + "/checkpoints/details/1",
		"/jobs/" + job + "/metrics", "/jobs/" + job + "/metrics?get=uptime,numRestarts", "/jobs/" + job + "/resource-requirements",
		"/v1/overview",
	} {
		api.expect(t, "GET", p, nil, 200)
	}
	vertex := vertexIDs(t, session, job)[0]
	api.expect(t, "GET", "/jobs/"+job+"/vertices/"+vertex+"/subtasks/metrics?get=numRecordsOut,busyTimeMsPerSecond&agg=sum,max", nil, 200)
	api.expect(t, "GET", "/jobs/"+job+"/vertices/"+vertex+"/subtasks/metrics", nil, 200)
	// Flink's aggregating metric handlers answer nothing at all when one requested metric has
	// no values (AbstractAggregatingMetricsHandler).
	for _, p := range []string{
		"/jobs/" + job + "/vertices/" + vertex + "/subtasks/metrics?get=numRecordsOut,noSuchMetric",
		"/jobs/metrics?get=uptime,noSuchMetric", "/taskmanagers/metrics?get=Status.JVM.CPU.Load,noSuchMetric",
	} {
		if body := strings.TrimSpace(string(api.expect(t, "GET", p, nil, 200))); body != "[]" {
			t.Errorf("GET %s = %s, want []", p, body)
		}
	}
	exerciseReadEndpoints(t, api, session, job)

	cp := api.trigger(t, "/jobs/"+job+"/checkpoints", map[string]any{"checkpointType": "FULL"})
	api.expect(t, "GET", "/jobs/"+job+"/checkpoints/"+cp, nil, 200) // in progress
	w.advance(time.Second, session)
	api.expect(t, "GET", "/jobs/"+job+"/checkpoints/"+cp, nil, 200) // completed

	sp := api.trigger(t, "/jobs/"+job+"/savepoints", map[string]any{"target-directory": "file:///sp", "cancel-job": false, "formatType": "CANONICAL", "triggerId": strings.Repeat("2b", 16)})
	api.expect(t, "GET", "/jobs/"+job+"/savepoints/"+sp, nil, 200)
	checkSavepointInProgress(t, api, job) // listed in the checkpoint history, valid by the spec
	w.advance(time.Second, session)
	var spRes struct {
		Operation struct {
			Location string `json:"location"`
		} `json:"operation"`
	}
	api.decode(t, api.expect(t, "GET", "/jobs/"+job+"/savepoints/"+sp, nil, 200), &spRes)

	reqs := map[string]any{}
	for _, id := range vertexIDs(t, session, job) {
		reqs[id] = map[string]any{"parallelism": map[string]int{"lowerBound": 1, "upperBound": 3}}
	}
	api.expect(t, "PUT", "/jobs/"+job+"/resource-requirements", reqs, 200)
	w.advance(2*time.Second, session)

	disp := api.postTrigger(t, "/savepoint-disposal", map[string]any{"savepoint-path": spRes.Operation.Location}, 200)
	w.advance(time.Second, session)
	api.expect(t, "GET", "/savepoint-disposal/"+disp, nil, 200)

	api.expect(t, "PATCH", "/jobs/"+job+"?mode=cancel", nil, 202)
	w.advance(time.Second, session)
	api.expect(t, "GET", "/jobs/"+job+"/execution-result", nil, 200)
	exerciseSessionOperations(t, w, api, session, jarID)
	api.expect(t, "DELETE", "/jars/"+jarID, nil, 200)

	// Application cluster: stop-with-savepoint, and a failed savepoint's failure-cause.
	app := w.startApp(t, "app", conf())
	appAPI := w.client(app, v)
	w.advance(3*time.Second, app)
	appJob := app.Jobs()[0].ID
	app.FailNextSavepoints(1)
	failed := appAPI.trigger(t, "/jobs/"+appJob+"/savepoints", map[string]any{})
	w.advance(time.Second, app)
	appAPI.expect(t, "GET", "/jobs/"+appJob+"/savepoints/"+failed, nil, 200)
	stop := appAPI.trigger(t, "/jobs/"+appJob+"/stop", map[string]any{"drain": false, "formatType": "NATIVE"})
	w.advance(time.Second, app)
	appAPI.expect(t, "GET", "/jobs/"+appJob+"/savepoints/"+stop, nil, 200)

	// Errors: Flink's shape and status codes.
	api.expect(t, "GET", "/jobs/"+strings.Repeat("0", 32), nil, 404)
	api.expect(t, "GET", "/no/such/route", nil, 404)
	appAPI.expect(t, "PATCH", "/jobs/"+appJob+"?mode=cancel", nil, 409) // already FINISHED
	appAPI.expect(t, "GET", "/jobs/"+appJob+"/savepoints/"+strings.Repeat("9", 32), nil, 404)

	appAPI.expect(t, "DELETE", "/cluster", nil, 200)
	if app.Up() {
		t.Error("DELETE /cluster left the JobManager running")
	}

	served := 0
	for _, op := range operations {
		if v.seen[op] {
			served++
		} else {
			t.Errorf("operation %s of the spec was not exercised", op)
		}
	}
	for i, ex := range specExceptions {
		if !v.used[i] {
			t.Errorf("documented spec exception no longer occurs (remove it): %s %q", ex.operation, ex.contains)
		}
	}
	slices.Sort(v.errs)
	for _, e := range slices.Compact(v.errs) {
		t.Errorf("spec violation: %s", e)
	}
	if !t.Failed() {
		t.Logf("fakeflink REST: %d/%d operations served and conformant", served, len(operations))
	}
}

// api is a raw REST client of one cluster, for conformance checks.
type api struct {
	base   string
	client *http.Client
}

func (w *restWorld) client(c *serverCluster, v *validator) *api {
	client := c.srv.Client()
	client.Transport = v
	return &api{base: c.srv.URL, client: client}
}

func (a *api) do(t *testing.T, method, path string, body any) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		r = bytes.NewReader(data)
	}
	req, _ := http.NewRequestWithContext(context.Background(), method, a.base+path, r)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

func (a *api) expect(t *testing.T, method, path string, body any, status int) []byte {
	t.Helper()
	got, data := a.do(t, method, path, body)
	if got != status {
		t.Fatalf("%s %s = %d %s, want %d", method, path, got, data, status)
	}
	return data
}

func (a *api) decode(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
}

func (a *api) postTrigger(t *testing.T, path string, body any, status int) string {
	t.Helper()
	var resp struct {
		RequestID string `json:"request-id"`
	}
	a.decode(t, a.expect(t, "POST", path, body, status), &resp)
	if resp.RequestID == "" {
		t.Fatalf("POST %s returned no request-id", path)
	}
	return resp.RequestID
}

func (a *api) trigger(t *testing.T, path string, body any) string {
	t.Helper()
	return a.postTrigger(t, path, body, 202)
}

func (a *api) uploadJar(t *testing.T, name string) string {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("jarfile", name)
	_, _ = fw.Write([]byte("PK\x03\x04fake"))
	_ = mw.Close()
	req, _ := http.NewRequestWithContext(context.Background(), "POST", a.base+"/jars/upload", &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := a.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var out struct {
		Filename string `json:"filename"`
		Status   string `json:"status"`
	}
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("upload: %d %s", resp.StatusCode, data)
	}
	a.decode(t, data, &out)
	return filepath.Base(out.Filename)
}

// checkSavepointInProgress: while a savepoint is in flight, GET /jobs/:id/checkpoints counts it
// in progress and lists it first in the history (className in_progress, is_savepoint), as
// Flink reports every pending checkpoint, savepoints included, to its statistics.
func checkSavepointInProgress(t *testing.T, api *api, job string) {
	t.Helper()
	var st struct {
		Counts struct {
			InProgress int `json:"in_progress"`
		} `json:"counts"`
		History []struct {
			ClassName   string `json:"className"`
			Status      string `json:"status"`
			IsSavepoint bool   `json:"is_savepoint"`
		} `json:"history"`
	}
	api.decode(t, api.expect(t, "GET", "/jobs/"+job+"/checkpoints", nil, 200), &st)
	if st.Counts.InProgress != 1 || len(st.History) == 0 || st.History[0].ClassName != "in_progress" ||
		st.History[0].Status != "IN_PROGRESS" || !st.History[0].IsSavepoint {
		t.Errorf("a savepoint in flight: counts.in_progress %d, history %+v", st.Counts.InProgress, st.History)
	}
}
