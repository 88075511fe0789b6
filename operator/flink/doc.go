// Package flink is the only package that speaks Flink's REST API: a typed client with context and
// timeouts on every call, small role interfaces defined by their users, and typed errors
// (IsNotFound, IsUnavailable, IsConflict). It arrives with the fakeflink issue.
package flink
