// Package flink is the only package that speaks Flink's JobManager REST API. Client is a typed
// client with a context and a timeout on every call; its results follow Flink's real payloads,
// including where they differ from the generated OpenAPI spec (bare metric arrays, the
// SerializedThrowable shape, camelCase failureCause for checkpoints, null operations while an
// async operation runs). Errors are *Error values; IsNotFound, IsUnavailable, IsConflict and
// IsBadRequest classify them through errors.As. Its users declare the small interfaces they
// need where they use them (observe.FlinkAPI, act.FlinkAPI, …), and *Client satisfies them.
package flink
