package flink

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Error is a failed Flink REST call: either an HTTP error answer (StatusCode and Flink's
// "errors" messages) or a transport failure (StatusCode 0, Err set) such as a refused
// connection or a timeout.
type Error struct {
	// Method and Path name the call.
	Method, Path string
	// StatusCode is the HTTP status, or 0 when no answer came.
	StatusCode int
	// Messages are Flink's error strings (often a whole Java stack trace each).
	Messages []string
	// Err is the transport or decoding error, if any.
	Err error
}

func (e *Error) Error() string {
	if e.StatusCode == 0 {
		return fmt.Sprintf("flink %s %s: %v", e.Method, e.Path, e.Err)
	}
	msg := e.Summary()
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("flink %s %s: %d %s: %s", e.Method, e.Path, e.StatusCode, http.StatusText(e.StatusCode), msg)
}

// Unwrap returns the transport or decoding error.
func (e *Error) Unwrap() error { return e.Err }

// Summary is the first line of the most telling message: Flink's 500s start with
// "Internal server error." and put the cause in the second message.
func (e *Error) Summary() string {
	for _, m := range e.Messages {
		if m == "Internal server error." && len(e.Messages) > 1 {
			continue
		}
		m = strings.TrimPrefix(m, "<Exception on server side:\n")
		return strings.TrimSpace(strings.SplitN(m, "\n", 2)[0])
	}
	return ""
}

// Contains reports whether any of Flink's messages contains s (Flink's messages are whole
// stringified exceptions: match a substring, never the whole text).
func (e *Error) Contains(s string) bool {
	for _, m := range e.Messages {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

func statusOf(err error) (int, bool) {
	var e *Error
	if !errors.As(err, &e) {
		return 0, false
	}
	return e.StatusCode, true
}

// IsNotFound reports a 404: unknown job, jar, or an expired or unknown trigger id.
func IsNotFound(err error) bool {
	code, ok := statusOf(err)
	return ok && code == http.StatusNotFound
}

// IsConflict reports a 409, e.g. cancelling a job that already ended, or submitting a job id
// that already runs.
func IsConflict(err error) bool {
	code, ok := statusOf(err)
	return ok && code == http.StatusConflict
}

// IsBadRequest reports a 400, e.g. a savepoint without a target directory.
func IsBadRequest(err error) bool {
	code, ok := statusOf(err)
	return ok && code == http.StatusBadRequest
}

// IsUnavailable reports that the JobManager cannot answer now: no answer at all (refused,
// reset, timed out) or 503 (leader election, endpoint not started) or 502/504 from a proxy.
// Such calls are worth retrying later.
func IsUnavailable(err error) bool {
	code, ok := statusOf(err)
	return ok && (code == 0 || code == http.StatusServiceUnavailable || code == http.StatusBadGateway || code == http.StatusGatewayTimeout)
}
