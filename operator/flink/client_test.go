package flink

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
)

const jm = "http://basic-rest.flink:8081"

const jobID = "a1b2c3d4e5f60718293a4b5c6d7e8f90"

func mockClient(t *testing.T) (*Client, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	return NewClient(jm, WithTransport(mt)), mt
}

// jsonBody checks a request's JSON body against want.
func jsonBody(t *testing.T, want map[string]any, status int, answer string) httpmock.Responder {
	t.Helper()
	return func(req *http.Request) (*http.Response, error) {
		var got map[string]any
		data, _ := io.ReadAll(req.Body)
		if err := json.Unmarshal(data, &got); err != nil {
			t.Errorf("request body %s: %v", data, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("request body mismatch (-want +got):\n%s", diff)
		}
		return httpmock.NewStringResponse(status, answer), nil
	}
}

func TestListJobsParsesOverview(t *testing.T) {
	c, mt := mockClient(t)
	mt.RegisterResponder("GET", jm+"/jobs/overview", httpmock.NewStringResponder(200, `{"jobs":[{"jid":"`+jobID+`",
		"name":"StateMachineExample","state":"RUNNING","start-time":1700000000000,"end-time":-1,"duration":5000,
		"last-modification":1700000001000,"tasks":{"total":4,"created":0,"running":4,"finished":0},"pending-operators":0}]}`))
	jobs, err := c.ListJobs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []JobOverview{{
		ID: jobID, Name: "StateMachineExample", State: JobRunning, StartTime: 1700000000000,
		EndTime: -1, Duration: 5000, LastModification: 1700000001000,
		Tasks: map[string]int32{"total": 4, "created": 0, "running": 4, "finished": 0},
	}}
	if diff := cmp.Diff(want, jobs); diff != "" {
		t.Errorf("ListJobs mismatch (-want +got):\n%s", diff)
	}
}

func TestSavepointLifecycle(t *testing.T) {
	cases := map[string]struct {
		answer string
		want   SavepointResult
	}{
		"in progress: operation is null": {
			answer: `{"status":{"id":"IN_PROGRESS"},"operation":null}`,
			want:   SavepointResult{},
		},
		"completed with a location": {
			answer: `{"status":{"id":"COMPLETED"},"operation":{"location":"s3://b/sp/savepoint-a1b2c3-0123456789ab"}}`,
			want:   SavepointResult{Done: true, Location: "s3://b/sp/savepoint-a1b2c3-0123456789ab"},
		},
		"completed with a failure cause": {
			answer: `{"status":{"id":"COMPLETED"},"operation":{"failure-cause":{"class":"java.util.concurrent.CompletionException",
				"stack-trace":"java.util.concurrent.CompletionException: java.io.IOException: disk full\n\tat x.y(Z.java:1)\n",
				"serialized-throwable":"rO0ABXNy"}}}`,
			want: SavepointResult{Done: true, Failure: &FailureCause{
				Class:      "java.util.concurrent.CompletionException",
				StackTrace: "java.util.concurrent.CompletionException: java.io.IOException: disk full\n\tat x.y(Z.java:1)\n",
			}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, mt := mockClient(t)
			mt.RegisterResponder("GET", jm+"/jobs/"+jobID+"/savepoints/t1", httpmock.NewStringResponder(200, tc.answer))
			got, err := c.SavepointStatus(context.Background(), jobID, "t1")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&tc.want, got); diff != "" {
				t.Errorf("SavepointStatus mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFailureCauseSummary(t *testing.T) {
	f := &FailureCause{Class: "X", StackTrace: "java.io.IOException: disk full\n\tat a.b(C.java:1)"}
	if got := f.Summary(); got != "java.io.IOException: disk full" {
		t.Errorf("Summary() = %q", got)
	}
	if got := (*FailureCause)(nil).Summary(); got != "" {
		t.Errorf("nil Summary() = %q", got)
	}
}

func TestTriggerRequestBodies(t *testing.T) {
	c, mt := mockClient(t)
	mt.RegisterResponder("POST", jm+"/jobs/"+jobID+"/savepoints", jsonBody(t,
		map[string]any{"target-directory": "s3://b/sp", "cancel-job": false, "formatType": "NATIVE", "triggerId": "t1"},
		202, `{"request-id":"t1"}`))
	mt.RegisterResponder("POST", jm+"/jobs/"+jobID+"/stop", jsonBody(t,
		map[string]any{"targetDirectory": "s3://b/sp", "drain": false, "triggerId": "t2"}, 202, `{"request-id":"t2"}`))
	mt.RegisterResponder("POST", jm+"/jobs/"+jobID+"/checkpoints", jsonBody(t,
		map[string]any{"checkpointType": "FULL"}, 202, `{"request-id":"t3"}`))
	ctx := context.Background()
	if id, err := c.TriggerSavepoint(ctx, jobID, SavepointRequest{TargetDirectory: "s3://b/sp", FormatType: "NATIVE", TriggerID: "t1"}); err != nil || id != "t1" {
		t.Errorf("TriggerSavepoint = %q, %v", id, err)
	}
	if id, err := c.StopWithSavepoint(ctx, jobID, StopRequest{TargetDirectory: "s3://b/sp", TriggerID: "t2"}); err != nil || id != "t2" {
		t.Errorf("StopWithSavepoint = %q, %v", id, err)
	}
	if id, err := c.TriggerCheckpoint(ctx, jobID, "FULL", ""); err != nil || id != "t3" {
		t.Errorf("TriggerCheckpoint = %q, %v", id, err)
	}
}

func TestCheckpointStatusUsesCamelCaseFailure(t *testing.T) {
	c, mt := mockClient(t)
	mt.RegisterResponder("GET", jm+"/jobs/"+jobID+"/checkpoints/t3", httpmock.NewStringResponder(200,
		`{"status":{"id":"COMPLETED"},"operation":{"failureCause":{"class":"org.apache.flink.runtime.checkpoint.CheckpointException","stack-trace":"CheckpointException: declined"}}}`))
	got, err := c.CheckpointStatus(context.Background(), jobID, "t3")
	if err != nil {
		t.Fatal(err)
	}
	if !got.Done || got.Failure == nil || got.Failure.Class != "org.apache.flink.runtime.checkpoint.CheckpointException" {
		t.Errorf("CheckpointStatus = %+v", got)
	}
}

func TestErrors(t *testing.T) {
	notFound := `{"errors":["org.apache.flink.runtime.rest.NotFoundException: There is no savepoint operation with triggerId=t9 for job ` + jobID + `.\n\tat org.apache.flink.runtime.rest.handler.async.AbstractAsynchronousOperationHandlers$StatusHandler.handleRequest(AbstractAsynchronousOperationHandlers.java:182)\n"]}`
	internal := `{"errors":["Internal server error.","<Exception on server side:\njava.lang.UnsupportedOperationException: The DefaultScheduler does not support changing the parallelism\n\tat a.b(C.java:1)\n\nEnd of exception on server side>"]}`
	cases := map[string]struct {
		status      int
		body        string
		transport   error
		wantNF      bool
		wantUnavail bool
		wantConf    bool
		wantBad     bool
		wantSummary string
	}{
		"404 after the trigger expired": {
			status: 404, body: notFound, wantNF: true,
			wantSummary: "org.apache.flink.runtime.rest.NotFoundException: There is no savepoint operation with triggerId=t9 for job " + jobID + ".",
		},
		"500 with a server-side stack trace": {
			status: 500, body: internal,
			wantSummary: "java.lang.UnsupportedOperationException: The DefaultScheduler does not support changing the parallelism",
		},
		"503 during leader election": {
			status: 503, wantUnavail: true,
			body:        `{"errors":["Service temporarily unavailable due to an ongoing leader election. Please refresh."]}`,
			wantSummary: "Service temporarily unavailable due to an ongoing leader election. Please refresh.",
		},
		"409 cancelling a finished job": {
			status: 409, wantConf: true,
			body:        `{"errors":["org.apache.flink.runtime.rest.handler.RestHandlerException: Job cancellation failed because the job has already reached another terminal state (FINISHED).\n\tat x"]}`,
			wantSummary: "org.apache.flink.runtime.rest.handler.RestHandlerException: Job cancellation failed because the job has already reached another terminal state (FINISHED).",
		},
		"400 without a savepoint directory": {
			status: 400, wantBad: true,
			body:        `{"errors":["org.apache.flink.runtime.rest.handler.RestHandlerException: Config key [execution.checkpointing.savepoint-dir] is not set. Property [target-directory] must be provided.\n\tat y"]}`,
			wantSummary: "org.apache.flink.runtime.rest.handler.RestHandlerException: Config key [execution.checkpointing.savepoint-dir] is not set. Property [target-directory] must be provided.",
		},
		"connection refused": {transport: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}, wantUnavail: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, mt := mockClient(t)
			url := jm + "/jobs/" + jobID + "/savepoints/t9"
			if tc.transport != nil {
				mt.RegisterResponder("GET", url, httpmock.NewErrorResponder(tc.transport))
			} else {
				mt.RegisterResponder("GET", url, httpmock.NewStringResponder(tc.status, tc.body))
			}
			_, err := c.SavepointStatus(context.Background(), jobID, "t9")
			if err == nil {
				t.Fatal("no error")
			}
			if IsNotFound(err) != tc.wantNF || IsUnavailable(err) != tc.wantUnavail || IsConflict(err) != tc.wantConf || IsBadRequest(err) != tc.wantBad {
				t.Errorf("classification of %v: notFound=%v unavailable=%v conflict=%v badRequest=%v", err,
					IsNotFound(err), IsUnavailable(err), IsConflict(err), IsBadRequest(err))
			}
			var fe *Error
			if !errors.As(err, &fe) {
				t.Fatalf("%T is not an *Error", err)
			}
			if tc.wantSummary != "" && fe.Summary() != tc.wantSummary {
				t.Errorf("Summary() = %q\nwant        %q", fe.Summary(), tc.wantSummary)
			}
			if tc.transport != nil && !strings.Contains(err.Error(), "connection refused") {
				t.Errorf("error %q hides the transport cause", err)
			}
		})
	}
}

func TestMetricsAreBareArrays(t *testing.T) {
	c, mt := mockClient(t)
	mt.RegisterResponder("GET", jm+"/jobs/"+jobID+"/metrics?get=uptime%2CnumRestarts",
		httpmock.NewStringResponder(200, `[{"id":"uptime","value":"12000"},{"id":"numRestarts","value":"0"}]`))
	mt.RegisterResponder("GET", jm+"/jobs/"+jobID+"/vertices/v1/subtasks/metrics?agg=sum%2Cmax&get=numRecordsOut",
		httpmock.NewStringResponder(200, `[{"id":"numRecordsOut","sum":1200.0,"max":600.0}]`))
	ctx := context.Background()
	m, err := c.JobMetrics(ctx, jobID, "uptime", "numRestarts")
	if err != nil || m["uptime"] != "12000" || m["numRestarts"] != "0" {
		t.Errorf("JobMetrics = %v, %v", m, err)
	}
	agg, err := c.SubtaskMetrics(ctx, jobID, "v1", []string{"numRecordsOut"}, []string{"sum", "max"})
	if err != nil || len(agg) != 1 || *agg[0].Sum != 1200 || *agg[0].Max != 600 || agg[0].Min != nil {
		t.Errorf("SubtaskMetrics = %+v, %v", agg, err)
	}
}

func TestCheckpointStatisticsWithNulls(t *testing.T) {
	c, mt := mockClient(t)
	mt.RegisterResponder("GET", jm+"/jobs/"+jobID+"/checkpoints", httpmock.NewStringResponder(200, `{
		"counts":{"restored":0,"total":3,"in_progress":0,"completed":3,"failed":0},
		"latest":{"completed":{"className":"completed","id":3,"status":"COMPLETED","is_savepoint":false,"savepointFormat":null,
			"checkpoint_type":"CHECKPOINT","trigger_timestamp":1700000030000,"external_path":"s3://b/cp/`+jobID+`/chk-3"},
			"savepoint":null,"failed":null,"restored":null},
		"history":[]}`))
	st, err := c.Checkpoints(context.Background(), jobID)
	if err != nil {
		t.Fatal(err)
	}
	if st.Latest.Completed == nil || st.Latest.Completed.ExternalPath != "s3://b/cp/"+jobID+"/chk-3" || st.Latest.Savepoint != nil || st.Counts.Completed != 3 {
		t.Errorf("Checkpoints = %+v", st)
	}
}

func TestCancelJobUsesPatchModeCancel(t *testing.T) {
	c, mt := mockClient(t)
	mt.RegisterResponder("PATCH", jm+"/jobs/"+jobID+"?mode=cancel", httpmock.NewStringResponder(202, `{}`))
	if err := c.CancelJob(context.Background(), jobID); err != nil {
		t.Fatal(err)
	}
	if n := mt.GetCallCountInfo()["PATCH "+jm+"/jobs/"+jobID+"?mode=cancel"]; n != 1 {
		t.Errorf("PATCH ?mode=cancel called %d times", n)
	}
}

// Flink's Jackson writes the doubles JSON has no number for as strings.
func TestFloatReadsFlinksDoubles(t *testing.T) {
	for in, want := range map[string]float64{`12.5`: 12.5, `"12.5"`: 12.5, `"Infinity"`: math.Inf(1), `0`: 0} {
		var f Float
		if err := json.Unmarshal([]byte(in), &f); err != nil || float64(f) != want {
			t.Errorf("%s: %v (%v), want %v", in, f, err, want)
		}
	}
	var f Float
	if err := json.Unmarshal([]byte(`"NaN"`), &f); err != nil || !math.IsNaN(float64(f)) {
		t.Errorf(`"NaN": %v (%v), want NaN`, f, err)
	}
	if err := json.Unmarshal([]byte(`{}`), &f); err == nil {
		t.Error("an object read as a number")
	}
}

// TestClientFollowsNoRedirectAndBoundsAnswers: a JobManager that redirects a call gets an
// error, never the call (nor its body, nor the client's certificate) sent elsewhere; an answer
// larger than its endpoint's limit is an error, not memory.
func TestClientFollowsNoRedirectAndBoundsAnswers(t *testing.T) {
	c, mt := mockClient(t)
	elsewhere := 0
	mt.RegisterResponder(http.MethodPost, jm+"/jobs/"+jobID+"/stop", func(*http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(http.StatusTemporaryRedirect, "")
		resp.Header.Set("Location", "https://other-rest.victim:8081/jobs/x/stop")
		return resp, nil
	})
	mt.RegisterResponder(http.MethodPost, "https://other-rest.victim:8081/jobs/x/stop", func(*http.Request) (*http.Response, error) {
		elsewhere++
		return httpmock.NewStringResponse(http.StatusAccepted, `{"request-id":"r"}`), nil
	})
	if _, err := c.StopWithSavepoint(context.Background(), jobID, StopRequest{TargetDirectory: "file:///sp"}); err == nil || elsewhere > 0 {
		t.Errorf("a redirected stop: err %v, %d calls sent elsewhere; want an error and none", err, elsewhere)
	}
	mt.RegisterResponder(http.MethodGet, jm+"/jobs/overview", httpmock.NewStringResponder(http.StatusOK, `{"jobs":[],"pad":"`+strings.Repeat("x", AnswerJobList)+`"}`))
	if _, err := c.ListJobs(context.Background()); !errors.Is(err, ErrAnswerTooLarge) {
		t.Errorf("an answer of more than %d bytes: err = %v, want ErrAnswerTooLarge", AnswerJobList, err)
	}
}

// TestCancelAndRunHaveTheirOwnTimeouts: a job's cancel call is bounded by the cancel timeout
// and a jar's run by the submit timeout, not by the per-call timeout every other call has.
func TestCancelAndRunHaveTheirOwnTimeouts(t *testing.T) {
	mt := httpmock.NewMockTransport()
	deadlines := map[string]time.Time{}
	record := func(name, answer string) httpmock.Responder {
		return func(req *http.Request) (*http.Response, error) {
			deadline, ok := req.Context().Deadline()
			if !ok {
				t.Errorf("%s: no deadline", name)
			}
			deadlines[name] = deadline
			return httpmock.NewStringResponse(http.StatusAccepted, answer), nil
		}
	}
	mt.RegisterResponder(http.MethodPatch, jm+"/jobs/"+jobID+"?mode=cancel", record("cancel", "{}"))
	mt.RegisterResponder(http.MethodPost, jm+"/jars/j.jar/run", record("run", `{"jobid":"`+jobID+`"}`))
	mt.RegisterResponder(http.MethodGet, jm+"/jobs/overview", record("list", `{"jobs":[]}`))
	c := NewClient(jm, WithTransport(mt), WithTimeout(time.Second), WithCancelTimeout(time.Hour), WithSubmitTimeout(2*time.Hour))
	ctx := context.Background()
	if err := c.CancelJob(ctx, jobID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RunJar(ctx, "j.jar", RunJarRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListJobs(ctx); err != nil {
		t.Fatal(err)
	}
	// Measured from the list call's deadline (1 s after it was sent), a moment later.
	for name, want := range map[string][2]time.Duration{"cancel": {58 * time.Minute, time.Hour}, "run": {118 * time.Minute, 2 * time.Hour}} {
		if got := deadlines[name].Sub(deadlines["list"]); got <= want[0] || got > want[1] {
			t.Errorf("%s's deadline is %s before the list call's, want in (%s, %s]", name, -got, want[0], want[1])
		}
	}
}
