// Package decide is the operator's state machine as pure functions: (spec, status, observation,
// options, now) → one Action plus status changes. It does no I/O and imports neither client-go
// nor net/http, so the harness can drive it hardest. It arrives with the operator-core issue.
package decide
