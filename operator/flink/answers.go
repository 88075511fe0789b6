package flink

import (
	"net/http"
	"strings"
)

// Sizes of the answers the operator reads, by endpoint. A JobManager runs the tenant's code
// (its jar is on the JobManager's classpath), so its answers are as hostile as its spec: an
// answer larger than its endpoint's limit is an error (ErrAnswerTooLarge), read no further.
// Each limit is a few times the largest answer Flink itself sends for that endpoint; the
// figures, and where they come from, are in docs/flink-contract.md ("REST answer sizes").
const (
	// AnswerSmall: answers of a few fields (a trigger's request id, a job's status, the
	// dashboard's configuration, a jar run's job id, an empty answer).
	AnswerSmall = 64 << 10
	// AnswerOperation: an asynchronous operation's result, whose failure cause is one
	// serialized Java exception with its causes.
	AnswerOperation = 1 << 20
	// AnswerConfig: the JobManager's whole configuration, one entry per key; metrics and
	// resource requirements, one entry per vertex or metric asked for.
	AnswerConfig = 1 << 20
	// AnswerHistory: a job's exception history (at most 20 entries, each with its stack trace
	// and its concurrent exceptions), checkpoint statistics (web.checkpoints.history entries,
	// each with per-vertex figures), a job's execution result (accumulators), the jar and
	// TaskManager lists.
	AnswerHistory = 4 << 20
	// AnswerJobList: the jobs overview of a session cluster running thousands of jobs, and a
	// job's details with its plan (every operator's description).
	AnswerJobList = 8 << 20
	// AnswerError: the body of an error answer: Flink's {"errors": [...]}, each a stack trace.
	AnswerError = 256 << 10
)

// MaxAnswerHeaderBytes bounds the status line and headers of a JobManager's answer (Go's
// default is 10 MiB, outside the answer budget); Flink's are a few hundred bytes.
const MaxAnswerHeaderBytes = 64 << 10

// answerLimits are the limits of the GET answers by Flink's path template (":x" stands for
// one path segment). Answers to other methods are AnswerSmall but for the few listed.
var answerLimits = []struct {
	method, template string
	limit            int64
}{
	{http.MethodGet, "/config", AnswerSmall},
	{http.MethodGet, "/overview", AnswerSmall},
	{http.MethodGet, "/jobmanager/config", AnswerConfig},
	{http.MethodGet, "/taskmanagers", AnswerHistory},
	{http.MethodGet, "/jars", AnswerHistory},
	{http.MethodGet, "/jobs/overview", AnswerJobList},
	{http.MethodGet, "/jobs/:jobid", AnswerJobList},
	{http.MethodGet, "/jobs/:jobid/status", AnswerSmall},
	{http.MethodGet, "/jobs/:jobid/exceptions", AnswerHistory},
	{http.MethodGet, "/jobs/:jobid/execution-result", AnswerHistory},
	{http.MethodGet, "/jobs/:jobid/checkpoints", AnswerHistory},
	{http.MethodGet, "/jobs/:jobid/checkpoints/config", AnswerSmall},
	{http.MethodGet, "/jobs/:jobid/checkpoints/details/:checkpointid", AnswerHistory},
	{http.MethodGet, "/jobs/:jobid/checkpoints/:triggerid", AnswerOperation},
	{http.MethodGet, "/jobs/:jobid/savepoints/:triggerid", AnswerOperation},
	{http.MethodGet, "/jobs/:jobid/stop/:triggerid", AnswerOperation},
	{http.MethodGet, "/savepoint-disposal/:triggerid", AnswerOperation},
	{http.MethodGet, "/jobs/:jobid/resource-requirements", AnswerConfig},
	{http.MethodGet, "/jobs/:jobid/metrics", AnswerConfig},
	{http.MethodGet, "/jobs/:jobid/vertices/:vertexid/subtasks/metrics", AnswerConfig},
}

// AnswerLimit is the largest answer the operator reads for a call of method to path (its
// query ignored): its endpoint's limit, AnswerSmall for a path not listed.
func AnswerLimit(method, path string) int64 {
	path, _, _ = strings.Cut(path, "?")
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for _, e := range answerLimits {
		if e.method == method && matchTemplate(strings.Split(strings.Trim(e.template, "/"), "/"), segs) {
			return e.limit
		}
	}
	return AnswerSmall
}

// matchTemplate reports whether path segments segs match a template's (":x" matches any one
// segment, other segments themselves). Literal segments are tried by the caller's order, so
// /jobs/overview is listed before /jobs/:jobid.
func matchTemplate(tmpl, segs []string) bool {
	if len(tmpl) != len(segs) {
		return false
	}
	for i, t := range tmpl {
		if !strings.HasPrefix(t, ":") && t != segs[i] {
			return false
		}
	}
	return true
}
